/** Dates and times as the APIs take them: local values without a zone, checked to be real. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,6})?)?$/;

/** A real calendar date, YYYY-MM-DD, year 1 to 9999 (what PostgreSQL's date accepts without surprises). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  // Day 0 of the next month is the last day of this one (Date.UTC maps years 0-99 to 1900+, hence setUTCFullYear).
  const last = new Date(0);
  last.setUTCFullYear(y, mo, 0);
  return d <= last.getUTCDate();
}

/** A time of day, `HH:MM` or `HH:MM:SS`. */
export const isTime = (v: string) => TIME.test(v);
/** A real date and time of day, `YYYY-MM-DDTHH:MM[:SS[.ffffff]]` (or a space for the T). */
export function isDateTime(v: string): boolean {
  const m = DATETIME.exec(v);
  return Boolean(m && isCalendarDate(m[1]!));
}

/** PostgreSQL text cannot hold NUL; a NUL anywhere in a string is refused rather than left to fail in SQL. */
export const hasNul = (v: string) => v.includes('\u0000');
