/** A value for a single-line text field: no line breaks, and no NUL (which PostgreSQL text cannot hold). */
export function isSingleLine(value: string): boolean {
  return !/[\r\n]/.test(value) && !value.includes('\u0000');
}

/**
 * Whether `value` holds a control character (C0 or DEL). Identifiers a client sends (an email, a
 * client id) never do; a NUL among them would only reach the database to be refused there.
 */
export function hasControlCharacter(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return /[\u0000-\u001f\u007f]/.test(value);
}
