import { offsetAtLocal, readLocal } from '../../platform/util/local-time.js';

/**
 * How the catalogue writes times for websites: an event's local date-time (stored without a zone,
 * in the event's time zone) as ISO 8601 with that zone's offset then. (Currencies: pricing's
 * `financialUnitOf`.)
 */

/** An instant: ISO 8601 with its offset, and milliseconds since the epoch (to compare). */
export interface Instant {
  iso: string;
  ms: number;
}

/** The local date-time (or date: its midnight) `local` in `zone` (UTC when none or unknown), with the zone's offset then. */
export function instantOf(local: string | null, zone: string | null): Instant | null {
  const reading = readLocal(local);
  if (!reading) return null;
  const [y, mo, d, h, mi, s] = reading.fields;
  const offset = offsetAtLocal(reading.wallMs, zone);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return {
    iso: `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`,
    ms: reading.wallMs - offset * 60000,
  };
}
