import { GraphQLError, type ExecutionResult } from 'graphql';
import type { GraphQLContext } from './context.js';

/**
 * A mutation request never both commits and reports a failure. Clients treat an answer with
 * errors (or without the record they created) as failed and send it again: had it committed,
 * the retry would write it twice. So a mutation request whose answer went past the record budget,
 * or reports any error other than a mutation refused before it wrote, is rolled back whole and
 * answers `data: null`, the errors, and {@link rolledBackError} saying nothing was written. A
 * mutation refused before writing (a permission) only nulls its own payload, as documented: what
 * the others wrote is kept and answered.
 */
export type RollbackCause = 'budget' | 'error';

/** Why a mutation request's execution result must not be committed; undefined when it may be. */
export function rollbackCause(result: ExecutionResult, ctx: GraphQLContext): RollbackCause | undefined {
  // No `data`: a request error (variables that do not coerce), before anything ran.
  if (!('data' in result)) return undefined;
  if (ctx.overBudget()) return 'budget';
  return result.errors?.some((e) => !refusedAlone(e, result.data, ctx)) ? 'error' : undefined;
}

/** A mutation's refusal that wrote nothing, whose null stopped at its own field: the rest of the answer stands. */
function refusedAlone(error: GraphQLError, data: ExecutionResult['data'], ctx: GraphQLContext): boolean {
  if (!error.path || !ctx.refusedBeforeWriting(error.originalError)) return false;
  let at: unknown = data;
  for (const key of error.path.slice(0, -1)) {
    if (at === null || typeof at !== 'object') return false;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at !== null && typeof at === 'object';
}

/** The last error of a rolled-back mutation request: nothing was written, and what to do. */
export function rolledBackError(cause: RollbackCause): GraphQLError {
  const why =
    cause === 'budget'
      ? 'the answer of its mutations went past the record budget (ANSWER_TOO_LARGE), so the whole request was rolled back. Send it again selecting fewer nested records in the answer (and read them afterwards with queries)'
      : 'an error was reported for a mutation that had written (see the other errors), so the whole request was rolled back rather than kept with an answer that does not show it. Send it again once that is fixed (for instance selecting only fields you may read)';
  return new GraphQLError(`Nothing was written: ${why}.`, { extensions: { code: 'MUTATION_ROLLED_BACK' } });
}
