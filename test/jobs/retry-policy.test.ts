import test from 'ava';
import { UnrecoverableError, type Job } from 'bullmq';
import { DEFAULT_JOB_OPTIONS } from '../../src/platform/queues/queues.js';
import { withRetryPolicy } from '../../src/platform/queues/job-errors.js';
import { NotFoundError, ServiceUnavailableError } from '../../src/platform/errors.js';

const job = { data: {} } as Job<object>;

test('when a processor fails with an expected (4xx) error, then the job fails for good', async (t) => {
  const p = withRetryPolicy(async () => {
    throw new NotFoundError('Order 5 does not exist', 'order_not_found');
  });
  const err = await t.throwsAsync(p(job), { instanceOf: UnrecoverableError });
  t.is(err!.message, 'order_not_found: Order 5 does not exist');
});

test('when a processor fails with anything else, then the error is thrown on for a retry', async (t) => {
  const boom = new Error('connection reset');
  await t.throwsAsync(withRetryPolicy(async () => Promise.reject(boom))(job), { is: boom });
  const unavailable = new ServiceUnavailableError();
  await t.throwsAsync(withRetryPolicy(async () => Promise.reject(unavailable))(job), { is: unavailable });
});

test('jobs are retried with exponential backoff by default', (t) => {
  t.true((DEFAULT_JOB_OPTIONS.attempts ?? 1) > 1);
  t.deepEqual(DEFAULT_JOB_OPTIONS.backoff, { type: 'exponential', delay: 1000 });
});
