/**
 * How the catalogue writes times for websites: an event's local date-time (stored without a zone,
 * in the event's time zone) as ISO 8601 with that zone's offset then. (Currencies: pricing's
 * `financialUnitOf`.)
 */

/** Minutes `zone` is ahead of UTC at the instant `utcMs`. */
function offsetMinutes(utcMs: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Math.round((Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - utcMs) / 60000);
}

/** An instant: ISO 8601 with its offset, and milliseconds since the epoch (to compare). */
export interface Instant {
  iso: string;
  ms: number;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/** The local date-time (or date: its midnight) `local` in `zone` (UTC when none or unknown), with the zone's offset then. */
export function instantOf(local: string | null, zone: string | null): Instant | null {
  const m = local ? LOCAL.exec(local) : null;
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '00', m[5] ?? '00', m[6] ?? '00'].map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  let offset = 0;
  try {
    if (zone) {
      offset = offsetMinutes(wall, zone);
      offset = offsetMinutes(wall - offset * 60000, zone);
    }
  } catch {
    offset = 0;
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return { iso: `${m[1]}-${m[2]}-${m[3]}T${pad(h)}:${pad(mi)}:${pad(s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`, ms: wall - offset * 60000 };
}
