/**
 * The time zone names a database knows (PostgreSQL's pg_timezone_names), by their lower case:
 * `at time zone` takes only these, so a zone stored for SQL to read must be one of them.
 */
export type KnownZones = ReadonlyMap<string, string>;

/** {@link KnownZones} of the names a database lists. */
export function knownZones(names: Iterable<string>): KnownZones {
  return new Map([...names].map((name) => [name.toLowerCase(), name]));
}

/**
 * IANA time zone names (`Europe/London`), as the runtime's ICU data knows them. Offsets such as
 * `+01:00` are not zones: daylight saving would be lost. Returns the name to store, or undefined
 * when it is not a zone.
 *
 * Without `known`: the name as the caller wrote it, with only its case corrected
 * (`europe/london` -> `Europe/London`). ICU answers some current names with their older links
 * (`Europe/Kyiv` -> `Europe/Kiev`, `Asia/Kolkata` -> `Asia/Calcutta`), so its spelling is not
 * taken over otherwise.
 *
 * With `known` (the zones the database knows): the name as the database spells it when it knows
 * it (`asia/kolkata` -> `Asia/Kolkata`), else the zone ICU resolves it to when the database knows
 * that (`US/Pacific-New`, an alias PostgreSQL 15 dropped, -> `America/Los_Angeles`), else
 * undefined: a zone is stored only when both the runtime and the database can read it.
 */
export function canonicalTimeZone(name: string, known?: KnownZones): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  if (!known) return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
  return known.get(name.toLowerCase()) ?? known.get(resolved.toLowerCase());
}
