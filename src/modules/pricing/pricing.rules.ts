import { problem, type Problem } from '../../platform/problems.js';

/**
 * What a price may hold: an amount from 0 with at most 2 decimals and 10 digits before the point
 * (the column is numeric(12,2)), in a currency with an ISO 4217 code.
 */

/** Whether `code` is an ISO 4217 currency code the runtime knows (`GBP`). */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && Intl.supportedValuesOf('currency').includes(code);
}

/** The problem (none or one) of an amount given as decimal text (`"495.00"`). */
export function amountProblems(field: string, amount: string): Problem[] {
  return /^\d{1,10}(\.\d{1,2})?$/.test(amount)
    ? []
    : [problem(field, amount, `${field} must be from 0 to 9999999999.99, with at most 2 decimals`)];
}
