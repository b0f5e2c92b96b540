import { LRUCache } from 'lru-cache';
import { isDateTime } from './dates.js';

/**
 * Clock arithmetic of local date-times (`2027-03-10T09:00`, kept without a zone) on the clock of
 * an IANA time zone: which instant a local time is, and which local time an instant is, with
 * daylight saving. Pure, on the runtime's Intl data; the events' rules, the Core API's instants
 * and WebLink's offsets all read times through here.
 */

/** A valid local date-time spelled one way (`YYYY-MM-DDTHH:MM:SS.ffffff`), so two can be compared as text. */
export function comparableLocal(value: string): string {
  const [date, time] = value.split('T') as [string, string];
  const [hm, fraction = ''] = time.split('.');
  return `${date}T${hm!.length === 5 ? `${hm}:00` : hm}.${fraction.padEnd(6, '0')}`;
}

/**
 * One formatter per zone: making one costs about 15 times what formatting with it does (a page of
 * 65 learners' event starts spent most of its CPU here). Zone names are spelled in any case, so
 * the cache is bounded (the least recently used goes).
 */
const formatters = new LRUCache<string, Intl.DateTimeFormat>({ max: 1000 });

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Offsets already worked out, by zone and instant: a pure function of the two (the runtime's zone
 * data does not change while it runs) that costs a formatter call (about 8 µs) where a map lookup
 * costs well under one, and pages answer the same few times over and over (a contacts page's
 * learners share their events; a schedule's sessions are asked page after page). At most
 * 10,000, the least recently used going first. An unknown zone throws each time and is not kept.
 */
const offsets = new LRUCache<string, number>({ max: 10_000 });

/** How many offsets are kept (at most 10,000): what the tests check the bound by. */
export function offsetsKept(): number {
  return offsets.size;
}

/** Minutes `zone` is ahead of UTC at the instant `utcMs`. */
export function offsetMinutes(utcMs: number, zone: string): number {
  // The separator keeps `Etc/GMT-1` at 41000 apart from `Etc/GMT-14` at 1000.
  const key = `${zone}|${utcMs}`;
  const kept = offsets.get(key);
  if (kept !== undefined) return kept;
  const parts = formatterOf(zone).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  wall.setUTCFullYear(get('year'), get('month') - 1, get('day'));
  wall.setUTCHours(get('hour'), get('minute'), get('second'), 0);
  const offset = Math.round((wall.getTime() - utcMs) / 60000);
  offsets.set(key, offset);
  return offset;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/** A local date-time (or a date: its midnight) read as its fields, and as the same clock reading in UTC (milliseconds). */
export interface LocalReading {
  fields: [year: number, month: number, day: number, hour: number, minute: number, second: number];
  wallMs: number;
}

export function readLocal(local: string | null): LocalReading | undefined {
  const m = local ? LOCAL.exec(local) : null;
  if (!m) return undefined;
  const fields = [m[1], m[2], m[3], m[4] ?? '00', m[5] ?? '00', m[6] ?? '00'].map(Number) as LocalReading['fields'];
  const wall = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  wall.setUTCFullYear(fields[0], fields[1] - 1, fields[2]);
  wall.setUTCHours(fields[3], fields[4], fields[5], 0);
  return { fields, wallMs: wall.getTime() };
}

/**
 * Minutes `zone` is ahead of UTC when its clocks read `wallMs` (0 with no zone or an unknown one):
 * the offset at the instant the clock reading would be, corrected once for a change of offset
 * between the two (a local time in a daylight-saving gap takes the offset after it).
 */
export function offsetAtLocal(wallMs: number, zone: string | null): number {
  if (!zone) return 0;
  try {
    const first = offsetMinutes(wallMs, zone);
    return offsetMinutes(wallMs - first * 60000, zone);
  } catch {
    return 0;
  }
}

/**
 * The local date-time (or a date: its midnight) `local` in `zone` (UTC when none or unknown) as
 * the Core API answers instants: ISO 8601 in UTC, to the second (`2027-03-10T08:00:00Z`).
 */
export function utcInstant(local: string | null, zone: string | null): string | null {
  const reading = readLocal(local);
  if (!reading) return null;
  return new Date(reading.wallMs - offsetAtLocal(reading.wallMs, zone) * 60000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const ZONED = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A date-time as the `timeZoned*` keys take it, on `zone`'s clock (a local date-time, to the
 * second): with an offset (`2024-04-01T00:00:00Z`, `+01:00`) it is an instant, shown as the
 * clock in `zone` read then; without one it is on that clock already. Undefined when it is no
 * real date-time (or `zone` no zone).
 */
export function onZoneClock(value: string, zone: string): string | undefined {
  const m = ZONED.exec(value.trim());
  if (!m || !isDateTime(m[1]!)) return undefined;
  const local = m[1]!.replace(' ', 'T');
  if (!m[2]) return local;
  const offset =
    m[2].toUpperCase() === 'Z'
      ? 0
      : (m[2][0] === '-' ? -1 : 1) * (Number(m[2].slice(1, 3)) * 60 + Number(m[2].replace(':', '').slice(3, 5) || 0));
  if (Math.abs(offset) > 18 * 60) return undefined;
  const [date, time] = local.split('T') as [string, string];
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, sec = '0'] = time.split(':');
  const wall = new Date(0);
  wall.setUTCFullYear(y, mo - 1, d);
  wall.setUTCHours(Number(h), Number(mi), Math.floor(Number(sec)), 0);
  const utcMs = wall.getTime() - offset * 60000;
  try {
    return new Date(utcMs + offsetMinutes(utcMs, zone) * 60000).toISOString().slice(0, 19);
  } catch {
    return undefined;
  }
}

/** A local date-time's date and its time to the second. */
export function splitLocal(value: string): { date: string; time: string } {
  const [date, time] = value.replace(' ', 'T').split('T');
  return { date: date!, time: time!.slice(0, 8) };
}

/** A time the tables keep in UTC without a zone (`updated_on`) as an instant: `2027-03-10T08:00:00Z`. */
export const utcStamp = (value: string | null): string | null => (value ? `${value.replace(' ', 'T').slice(0, 19)}Z` : null);
