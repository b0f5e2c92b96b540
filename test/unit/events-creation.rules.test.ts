import test from 'ava';
import { classroomProblems, deliveredProblems, timeColumns, type DeliveredFields } from '../../src/modules/events/event-creation.rules.js';
import { onZoneClock } from '../../src/platform/util/local-time.js';
import { knownZones } from '../../src/platform/util/time-zones.js';

/**
 * The rules of online (LMS) and blended events as event.createLMS and event.createBlended make
 * them: what each requires and refuses, the older keys (timeZone, timeZonedLmsStart) and the
 * stored times. Pure, no database.
 */

const lms: DeliveredFields = {
  deliveryMethod: 'lms',
  eventType: 'public',
  timeZoneName: 'Europe/London',
  lmsStartDateTime: '2025-04-01T00:00:00',
  lmsEndDateTime: '2025-09-30T00:00:00',
};
const blended: DeliveredFields = {
  ...lms,
  deliveryMethod: 'blended',
  classroomStartDateTime: '2025-03-03T09:00:00',
  classroomEndDateTime: '2025-03-03T17:00:00',
  lmsStartDateTime: '2025-02-01T00:00:00',
  lmsEndDateTime: '2025-04-30T23:59:00',
};
const fields = (r: { problems: { field: string }[] }) => r.problems.map((p) => p.field);

test('when an LMS event has its online period, then it passes with that period and no classroom part', (t) => {
  const r = deliveredProblems(lms, true);
  t.deepEqual(r, {
    problems: [],
    zone: 'Europe/London',
    classroom: { start: null, end: null },
    lms: { start: '2025-04-01T00:00:00', end: '2025-09-30T00:00:00' },
  });
});

test('when an LMS event lacks its online start or end, then each is required by name', (t) => {
  const r = deliveredProblems({ ...lms, lmsStartDateTime: null, lmsEndDateTime: undefined }, true);
  t.deepEqual(r.problems, [
    { field: 'lmsStartDateTime', value: null, message: 'lmsStartDateTime is required for an LMS event' },
    { field: 'lmsEndDateTime', value: null, message: 'lmsEndDateTime is required for an LMS event' },
  ]);
});

test('when an LMS event is given classroom times, then they are refused: it has no classroom part', (t) => {
  const r = deliveredProblems({ ...lms, classroomStartDateTime: '2025-04-02T09:00', classroomEndDateTime: '2025-04-02T17:00' }, true);
  t.deepEqual(fields(r), ['classroomStartDateTime', 'classroomEndDateTime']);
  t.regex(r.problems[0]!.message, /an LMS event has no classroom part/);
});

test('when the online end is not after its start, or a time is no real local date-time, then it is refused under the key given', (t) => {
  t.deepEqual(deliveredProblems({ ...lms, lmsEndDateTime: '2025-04-01T00:00' }, true).problems, [
    { field: 'lmsEndDateTime', value: '2025-04-01T00:00', message: 'lmsEndDateTime must be after lmsStartDateTime' },
  ]);
  t.deepEqual(fields(deliveredProblems({ ...lms, lmsStartDateTime: '2025-02-30T00:00' }, true)), ['lmsStartDateTime']);
  const zoned = deliveredProblems({ ...lms, lmsEndDateTime: null, timeZonedLmsEnd: '2025-03-31T23:00:00Z' }, true);
  t.deepEqual(zoned.problems, [
    { field: 'timeZonedLmsEnd', value: '2025-03-31T23:00:00Z', message: 'timeZonedLmsEnd must be after lmsStartDateTime' },
  ]);
});

test('when a blended event lacks either part, then each missing time is required; with both it keeps both', (t) => {
  t.deepEqual(fields(deliveredProblems({ ...blended, classroomStartDateTime: null, classroomEndDateTime: null }, true)), [
    'classroomStartDateTime',
    'classroomEndDateTime',
  ]);
  t.deepEqual(fields(deliveredProblems({ ...blended, lmsEndDateTime: null }, true)), ['lmsEndDateTime']);
  t.regex(deliveredProblems({ ...blended, lmsEndDateTime: null }, true).problems[0]!.message, /required for a blended event/);
  // The classroom part's own rules still hold: an end after its start.
  t.deepEqual(fields(deliveredProblems({ ...blended, classroomEndDateTime: '2025-03-03T08:00' }, true)), ['classroomEndDateTime']);
  const ok = deliveredProblems(blended, true);
  t.deepEqual(
    [ok.problems, ok.classroom, ok.lms],
    [[], { start: '2025-03-03T09:00:00', end: '2025-03-03T17:00:00' }, { start: '2025-02-01T00:00:00', end: '2025-04-30T23:59:00' }],
  );
});

test('when the online period comes as ISO 8601 with an offset, then it is kept as the event clock reads those instants', (t) => {
  // London is on UTC in March, an hour ahead in April (BST).
  const r = deliveredProblems(
    {
      ...lms,
      lmsStartDateTime: null,
      lmsEndDateTime: null,
      timeZonedLmsStart: '2024-04-01T00:00:00Z',
      timeZonedLmsEnd: '2024-09-30T00:00:00+02:00',
    },
    true,
  );
  t.deepEqual([r.problems, r.lms], [[], { start: '2024-04-01T01:00:00', end: '2024-09-29T23:00:00' }]);
  t.is(onZoneClock('2024-01-15T09:30:00Z', 'America/New_York'), '2024-01-15T04:30:00');
  t.is(onZoneClock('2024-01-15T09:30:00-0500', 'UTC'), '2024-01-15T14:30:00');
  // Without an offset it is on the event's clock already.
  t.is(onZoneClock('2024-01-15T09:30', 'Asia/Tokyo'), '2024-01-15T09:30');
  for (const bad of ['2024-02-30T00:00:00Z', 'tomorrow', '2024-01-15', '2024-01-15T09:30:00+25:00'])
    t.is(onZoneClock(bad, 'UTC'), undefined, bad);
});

test('when a time is given both as a local date-time and as an ISO 8601 one, or the ISO one is garbage, then it is refused under the ISO key', (t) => {
  t.deepEqual(deliveredProblems({ ...lms, timeZonedLmsStart: '2025-04-01T00:00:00Z' }, true).problems, [
    { field: 'timeZonedLmsStart', value: '2025-04-01T00:00:00Z', message: 'Give lmsStartDateTime or timeZonedLmsStart, not both' },
  ]);
  t.deepEqual(fields(deliveredProblems({ ...lms, lmsEndDateTime: null, timeZonedLmsEnd: 'soon' }, true)), ['timeZonedLmsEnd']);
});

test('when the zone comes by its older name timeZone, then it is used; with timeZoneName naming another zone it is refused, the same zone passes', (t) => {
  t.is(deliveredProblems({ ...lms, timeZoneName: null, timeZone: 'Europe/Paris' }, true).zone, 'Europe/Paris');
  t.deepEqual(fields(deliveredProblems({ ...lms, timeZoneName: 'UTC', timeZone: 'Europe/London' }, true)), ['timeZone']);
  t.deepEqual(deliveredProblems({ ...lms, timeZone: 'Europe/London' }, true).problems, []);
  // Neither: the zone is required; a bad older name is named as given.
  t.deepEqual(
    deliveredProblems({ ...lms, timeZoneName: null }, true).problems.map((p) => [p.field, p.value]),
    [['timeZoneName', null]],
  );
  t.deepEqual(fields(deliveredProblems({ ...lms, timeZoneName: undefined, timeZone: 'Mars/Base' }, true)), ['timeZone']);
});

test('when the zone is refused, then an instant given for the online period is not read on it (only the zone is named)', (t) => {
  const r = deliveredProblems(
    { ...lms, timeZoneName: 'Mars/Base', lmsStartDateTime: null, timeZonedLmsStart: '2025-04-01T00:00:00Z' },
    true,
  );
  t.deepEqual(fields(r), ['timeZoneName']);
});

test('when a venue, tax type or location names nothing, or there is neither template nor title, then each is named with the key clients send', (t) => {
  const r = deliveredProblems({ ...lms, venue: false, taxType: false, location: false }, false);
  t.deepEqual(fields(r), ['locationId', 'taxType', 'title', 'venueId']);
});

test('when an event has a classroom part, an online part or both, then its dates and times span the whole period', (t) => {
  t.deepEqual(
    timeColumns(
      'Europe/London',
      { start: '2025-03-03T09:00:00', end: '2025-03-03T17:00:00' },
      { start: '2025-02-01T00:00:00', end: '2025-04-30T23:59:00' },
    ),
    {
      time_zone_name: 'Europe/London',
      classroom_start: '2025-03-03T09:00:00',
      classroom_end: '2025-03-03T17:00:00',
      lms_start: '2025-02-01T00:00:00',
      lms_end: '2025-04-30T23:59:00',
      start_date: '2025-02-01',
      start_time: '00:00:00',
      end_date: '2025-04-30',
      end_time: '23:59:00',
    },
  );
  t.like(timeColumns('UTC', { start: null, end: null }, { start: '2025-04-01T08:00', end: '2025-09-30T18:00' }), {
    start_date: '2025-04-01',
    start_time: '08:00',
    end_date: '2025-09-30',
    end_time: '18:00',
  });
  // A classroom start alone: it ends on its start date, at no set time.
  t.like(timeColumns('UTC', { start: '2025-04-01T08:00', end: null }, { start: null, end: null }), {
    start_date: '2025-04-01',
    end_date: '2025-04-01',
    end_time: null,
  });
  t.like(timeColumns('UTC', { start: null, end: null }, { start: null, end: null }), {
    start_date: null,
    end_date: null,
    start_time: null,
    end_time: null,
  });
});

test('when a new event names a time zone alias PostgreSQL does not know, then its zone is the one the alias names; timeZone and timeZoneName may name it either way', (t) => {
  const known = knownZones(['America/Los_Angeles', 'Europe/London', 'UTC']);
  t.is(
    classroomProblems({ eventType: 'public', title: 'x', timeZoneName: 'US/Pacific-New' }, false, {}, known).zone,
    'America/Los_Angeles',
  );
  const r = deliveredProblems({ ...lms, timeZoneName: 'America/Los_Angeles', timeZone: 'US/Pacific-New' }, true, known);
  t.deepEqual([r.problems, r.zone], [[], 'America/Los_Angeles']);
  t.deepEqual(fields(deliveredProblems({ ...lms, timeZoneName: 'Europe/Paris' }, true, known)), ['timeZoneName']);
});
