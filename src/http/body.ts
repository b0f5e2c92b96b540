import { bodyParser } from '@koa/bodyparser';
import type { AppMiddleware } from './context.js';

/**
 * JSON and form bodies with a size limit. Parse errors are rethrown to the error mapping,
 * which turns them into 400 (invalid JSON) and 413 (too large).
 */
export function bodyParsing(limit: string): AppMiddleware {
  return bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: limit,
    formLimit: limit,
    jsonStrict: true,
    onError: (err) => {
      throw err;
    },
  }) as unknown as AppMiddleware;
}
