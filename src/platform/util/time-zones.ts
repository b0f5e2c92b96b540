/**
 * IANA time zone names (`Europe/London`), as the runtime's ICU data knows them. Offsets such as
 * `+01:00` are not zones: daylight saving would be lost. Returns the name to store, or undefined
 * when it is not a zone: the name as the caller wrote it, with only its case corrected
 * (`europe/london` -> `Europe/London`). ICU answers some current names with their older links
 * (`Europe/Kyiv` -> `Europe/Kiev`, `Asia/Kolkata` -> `Asia/Calcutta`), so its spelling is not
 * taken over otherwise: the caller's name stays as written.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}
