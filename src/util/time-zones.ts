/**
 * IANA time zone names (`Europe/London`), as the runtime's ICU data knows them. Offsets such as
 * `+01:00` are not zones: daylight saving would be lost. Returns the zone's canonical spelling
 * (`europe/london` -> `Europe/London`, `US/Pacific` -> `America/Los_Angeles`), or undefined.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
