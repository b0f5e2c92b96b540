import test from 'ava';
import { instantOf } from '../../src/modules/catalogue/catalogue.format.js';
import { offsetAtLocal, offsetMinutes, onZoneClock, readLocal, utcInstant } from '../../src/platform/util/local-time.js';

/** Clock arithmetic of local date-times (src/platform/util/local-time.ts). Pure, no database. */

test('when a local date-time is in the years 1-99, then it stays in that year (Date.UTC reads 0-99 as 1900-1999)', (t) => {
  t.is(utcInstant('0050-06-01T10:00', 'UTC'), '0050-06-01T10:00:00Z');
  t.is(instantOf('0050-06-01T10:00', 'UTC')?.iso, '0050-06-01T10:00:00+00:00');
  t.is(onZoneClock('0050-06-01T10:00:00Z', 'UTC'), '0050-06-01T10:00:00');
  const berlin = instantOf('0050-06-01T10:00', 'Europe/Berlin');
  t.regex(berlin?.iso ?? '', /^0050-06-01T10:00:00\+0[01]:\d{2}$/, 'an offset of local mean time, not thousands of hours');
  const reading = readLocal('0050-06-01T10:00')!;
  t.true(Math.abs(offsetAtLocal(reading.wallMs, 'Europe/Berlin')) <= 18 * 60);
  t.is(new Date(berlin!.ms).getUTCFullYear(), 50);
});

test('when a local date-time falls in a daylight-saving gap or overlap, then it takes the offset after the change', (t) => {
  // 2027-03-28 02:30 does not exist in London (clocks go 01:00 -> 02:00 UTC+1).
  t.is(utcInstant('2027-03-28T02:30', 'Europe/London'), '2027-03-28T01:30:00Z');
  t.is(instantOf('2027-10-31T01:30', 'Europe/London')?.iso, '2027-10-31T01:30:00+00:00');
  t.is(instantOf('2027-06-01T09:00', 'Asia/Kolkata')?.iso, '2027-06-01T09:00:00+05:30');
  t.is(instantOf('2027-06-01T09:00', 'America/St_Johns')?.iso, '2027-06-01T09:00:00-02:30');
});

test('when the same clock reading is asked of several zones, again and again, then each answers its own offset', (t) => {
  // offsetAtLocal keeps what it worked out: a reading shared by zones, or asked twice, must not take another's answer.
  const fresh = (wallMs: number, zone: string) => offsetMinutes(wallMs - offsetMinutes(wallMs, zone) * 60000, zone);
  const zones = ['Europe/London', 'Asia/Kolkata', 'America/New_York', 'europe/london', 'Not/AZone'];
  for (let round = 0; round < 2; round++) {
    for (let hour = 0; hour < 48; hour++) {
      const wallMs = Date.UTC(2027, 2, 27, hour, 30);
      for (const zone of zones) {
        const expected = zone === 'Not/AZone' ? 0 : fresh(wallMs, zone);
        t.is(offsetAtLocal(wallMs, zone), expected, `${zone} at ${new Date(wallMs).toISOString()}, round ${round + 1}`);
      }
    }
  }
  t.is(offsetAtLocal(Date.UTC(2027, 5, 1, 9), 'Asia/Kolkata'), 330);
  t.is(offsetAtLocal(Date.UTC(2027, 5, 1, 9), 'Europe/London'), 60);
});
