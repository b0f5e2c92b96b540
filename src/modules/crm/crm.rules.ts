import { problem, type Problem } from '../../platform/problems.js';

/**
 * Rules of CRM records beyond their fields' types: pure, on the values a record would have once
 * the write is applied (the new value where the input sets it, else the stored one).
 */

/** A campaign's dates (`YYYY-MM-DD`): it must not end before it starts. */
export function campaignProblems(c: { start_date?: string | null; end_date?: string | null }): Problem[] {
  return c.start_date && c.end_date && c.end_date < c.start_date
    ? [problem('end_date', c.end_date, 'end_date must not be before start_date')]
    : [];
}

/** A contact must be someone: it needs a first name, a last name or an email. */
export function contactProblems(c: { first_name?: string | null; last_name?: string | null; email?: string | null }): Problem[] {
  const named = [c.first_name, c.last_name, c.email].some((v) => (v ?? '') !== '');
  return named ? [] : [problem('last_name', c.last_name ?? null, 'a contact needs a first name, a last name or an email')];
}
