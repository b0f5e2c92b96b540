/** The largest amount a numeric(14,2) column holds. */
export const MAX_AMOUNT = 999999999999.99;

/**
 * Money as whole cents, so sums are exact: PostgreSQL numeric(14,2) arrives as text
 * ("395.00") and is parsed without going through a float; JSON numbers are rounded once.
 */
export function toCents(value: string | number): number {
  if (typeof value === 'number') return Math.round(value * 100);
  const m = /^(-?)(\d+)(?:\.(\d{1,2})\d*)?$/.exec(value.trim());
  if (!m) throw new Error(`not an amount: ${value}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '0').padEnd(2, '0'));
  return m[1] ? -cents : cents;
}

/** Cents as the text a numeric(14,2) column takes ("395.00"). */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Cents as a JSON number for output (395.5). */
export const centsToNumber = (cents: number): number => cents / 100;
