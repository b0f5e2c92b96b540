import test from 'ava';
import { instantOf } from '../../src/modules/catalogue/catalogue.format.js';
import { offsetAtLocal, offsetMinutes, offsetsKept, onZoneClock, readLocal, utcInstant } from '../../src/platform/util/local-time.js';

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
  // Offsets are kept once worked out: a reading shared by zones, or asked twice, must not take another's answer.
  const fresh = (utcMs: number, zone: string) => {
    // Worked out apart from local-time.ts: the zone's `GMT+hh:mm` name at that instant.
    const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(new Date(utcMs))
      .find((p) => p.type === 'timeZoneName')!.value;
    const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
    return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  };
  const zones = ['Europe/London', 'Asia/Kolkata', 'America/New_York', 'europe/london'];
  for (let round = 0; round < 2; round++) {
    for (let hour = 0; hour < 48; hour++) {
      const ms = Date.UTC(2027, 2, 27, hour, 30);
      for (const zone of zones) {
        t.is(offsetMinutes(ms, zone), fresh(ms, zone), `${zone} at ${new Date(ms).toISOString()}, round ${round + 1}`);
        t.is(offsetAtLocal(ms, zone), fresh(ms - fresh(ms, zone) * 60000, zone), `${zone}, local ${new Date(ms).toISOString()}`);
      }
      t.is(offsetAtLocal(ms, 'Not/AZone'), 0);
    }
  }
  // Zone and instant stay apart in what is kept: `Etc/GMT-14` at 1000 and `Etc/GMT-1` at 41000.
  t.is(offsetMinutes(1000, 'Etc/GMT-14'), 14 * 60);
  t.is(offsetMinutes(41000, 'Etc/GMT-1'), 60);
  t.is(onZoneClock('2027-06-01T08:00:00Z', 'Asia/Kolkata'), '2027-06-01T13:30:00');
  t.is(onZoneClock('2027-06-01T08:00:00Z', 'Europe/London'), '2027-06-01T09:00:00');
});

test('when more instants are asked than are kept, then the least recently used go and every answer stays right', (t) => {
  const start = Date.UTC(2030, 0, 1);
  for (let i = 0; i < 25_000; i++) offsetMinutes(start + i * 60_000, i % 2 ? 'Europe/Berlin' : 'Asia/Kolkata');
  t.true(offsetsKept() <= 10_000, `kept ${offsetsKept()}`);
  t.true(offsetsKept() >= 9_000, 'the newest are still kept');
  // The first ones asked were dropped and are worked out again; the last ones are kept.
  t.is(offsetMinutes(start, 'Asia/Kolkata'), 330);
  t.is(offsetMinutes(start + 24_999 * 60_000, 'Europe/Berlin'), 60);
  t.is(offsetMinutes(Date.UTC(2030, 6, 1), 'Europe/Berlin'), 120);
});
