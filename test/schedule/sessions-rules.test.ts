import test from 'ava';
import {
  MAX_SESSION_DAYS,
  planSessions,
  plannedInstants,
  sessionChanges,
  type PlannedEvent,
} from '../../src/modules/events/sessions.rules.js';

/** The rules of sessions, pure: which sessions a new event gets, and what a change of one may be. */

const classroom = (start: string | null, end: string | null, over: Partial<PlannedEvent> = {}): PlannedEvent => ({
  title: 'Course',
  time_zone_name: 'Europe/London',
  delivery_method: 'classroom',
  classroom_start: start,
  classroom_end: end,
  lms_start: null,
  lms_end: null,
  ...over,
});

test('when an event spans days, then per_day makes one session a day from its start time to its end time; single one over the period', (t) => {
  const event = classroom('2026-03-27T09:00:00', '2026-03-30T16:30:00');
  t.deepEqual(planSessions(event, 'per_day'), [
    { title: 'Course – Day 1', start: '2026-03-27T09:00:00', end: '2026-03-27T16:30:00' },
    { title: 'Course – Day 2', start: '2026-03-28T09:00:00', end: '2026-03-28T16:30:00' },
    { title: 'Course – Day 3', start: '2026-03-29T09:00:00', end: '2026-03-29T16:30:00' },
    { title: 'Course – Day 4', start: '2026-03-30T09:00:00', end: '2026-03-30T16:30:00' },
  ]);
  t.deepEqual(planSessions(event, 'single'), [{ title: 'Course', start: '2026-03-27T09:00:00', end: '2026-03-30T16:30:00' }]);
  // Each day on the event's clock: London moves to summer time on 29 March 2026.
  const [, , sunday] = planSessions(event, 'per_day');
  t.deepEqual(plannedInstants(sunday!, 'Europe/London'), { starts_at: '2026-03-29T08:00:00Z', ends_at: '2026-03-29T15:30:00Z' });
  t.deepEqual(plannedInstants(planSessions(event, 'per_day')[0]!, 'Europe/London'), {
    starts_at: '2026-03-27T09:00:00Z',
    ends_at: '2026-03-27T16:30:00Z',
  });
});

test('when a period is one day, overnight, too long, open-ended or absent, then it is one session or none', (t) => {
  t.deepEqual(planSessions(classroom('2026-01-05T09:00', '2026-01-05T17:00'), 'per_day'), [
    { title: 'Course', start: '2026-01-05T09:00', end: '2026-01-05T17:00' },
  ]);
  // Ends earlier in the day than it starts: its days cannot be cut at the same times.
  t.is(planSessions(classroom('2026-01-05T22:00', '2026-01-07T06:00'), 'per_day').length, 1);
  t.is(planSessions(classroom('2026-01-01T09:00', '2026-12-31T17:00'), 'per_day').length, 365);
  t.true(MAX_SESSION_DAYS < 731);
  t.deepEqual(planSessions(classroom('2026-01-01T09:00', '2027-12-31T17:00'), 'per_day'), [
    { title: 'Course', start: '2026-01-01T09:00', end: '2027-12-31T17:00' },
  ]);
  t.deepEqual(planSessions(classroom('2026-01-05T09:00', null), 'per_day'), [
    { title: 'Course', start: '2026-01-05T09:00', end: '2026-01-05T09:00' },
  ]);
  t.deepEqual(planSessions(classroom(null, null), 'per_day'), []);
});

test('when an event is online or blended, then an online one gets one session over its online period, a blended one its classroom days', (t) => {
  const online = classroom(null, null, { delivery_method: 'lms', lms_start: '2026-01-01T00:00', lms_end: '2026-03-31T23:59' });
  t.deepEqual(planSessions(online, 'per_day'), [{ title: 'Course', start: '2026-01-01T00:00', end: '2026-03-31T23:59' }]);
  const blended = classroom('2026-02-02T09:00', '2026-02-03T17:00', {
    delivery_method: 'blended',
    lms_start: '2026-01-01T00:00',
    lms_end: '2026-03-31T23:59',
  });
  t.deepEqual(
    planSessions(blended, 'per_day').map((s) => s.start),
    ['2026-02-02T09:00', '2026-02-03T09:00'],
  );
});

const before = { starts_at: new Date('2026-09-01T08:00:00Z'), ends_at: new Date('2026-09-01T16:00:00Z'), time_zone_name: 'Europe/London' };

test('when a session changes, then times are read on its clock (the zone given, else its own) and the end may not precede the start', (t) => {
  t.deepEqual(sessionChanges({ start: '2026-09-01T10:00:00' }, before), { problems: [], columns: { starts_at: '2026-09-01T09:00:00Z' } });
  t.deepEqual(sessionChanges({ timeZoneName: 'Asia/Tokyo', start: '2026-09-01T10:00:00', end: '2026-09-01T12:00:00' }, before).columns, {
    time_zone_name: 'Asia/Tokyo',
    starts_at: '2026-09-01T01:00:00Z',
    ends_at: '2026-09-01T03:00:00Z',
  });
  // The zone alone keeps the local times (09:00 to 17:00 in London becomes 09:00 to 17:00 in Tokyo).
  t.deepEqual(sessionChanges({ timeZoneName: 'Asia/Tokyo' }, before).columns, {
    time_zone_name: 'Asia/Tokyo',
    starts_at: '2026-09-01T00:00:00Z',
    ends_at: '2026-09-01T08:00:00Z',
  });
  t.deepEqual(sessionChanges({ end: '2026-09-01T08:59:00' }, before).problems, [
    { field: 'end', value: '2026-09-01T08:59:00', message: 'end must not be before start' },
  ]);
  // A session may last no time at all (a moment: an exam's deadline).
  t.deepEqual(sessionChanges({ end: '2026-09-01T09:00:00' }, before).problems, []);
  t.deepEqual(
    sessionChanges({ title: ' ', lifecycleState: 'archived', timeZoneName: '+01:00', location: false, venue: false }, before).problems.map(
      (p) => p.field,
    ),
    ['title', 'lifecycleState', 'locationId', 'venueId', 'timeZoneName'],
  );
  t.deepEqual(sessionChanges({ venue: null, location: { id: 3 }, lifecycleState: 'cancelled' }, before), {
    problems: [],
    columns: { venue_id: null, location_id: 3, lifecycle_state: 'cancelled' },
  });
});
