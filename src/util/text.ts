/** A value for a single-line text field: no line breaks, and no NUL (which PostgreSQL text cannot hold). */
export function isSingleLine(value: string): boolean {
  return !/[\r\n]/.test(value) && !value.includes('\u0000');
}
