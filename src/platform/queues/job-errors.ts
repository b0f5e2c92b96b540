import { UnrecoverableError, type Job } from 'bullmq';
import { AppError } from '../errors.js';

/**
 * The one mapping of errors to job retries: an expected failure (an AppError below 500, such
 * as a missing record) will not get better by retrying, so it fails the job for good; anything
 * else is thrown on and retried with the queue's exponential backoff.
 */
export function withRetryPolicy<D, R>(fn: (job: Job<D>, token?: string) => Promise<R>): (job: Job<D>, token?: string) => Promise<R> {
  return async (job, token) => {
    try {
      return await fn(job, token);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) throw new UnrecoverableError(`${err.code}: ${err.message}`);
      throw err;
    }
  };
}
