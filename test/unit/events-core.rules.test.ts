import test from 'ava';
import {
  dayOfWeekName,
  deleteProblems,
  eventCancelledAt,
  eventChanges,
  eventSoldOut,
  eventStatus,
  lifecycleColumns,
  localPeriod,
  MAX_SEARCH_WORDS,
  placesLeft,
  searchWords,
  type ChangedEvent,
} from '../../src/modules/events/events.rules.js';
import { utcInstant, utcStamp } from '../../src/platform/util/local-time.js';
import { canonicalTimeZone, knownZones } from '../../src/platform/util/time-zones.js';

/**
 * The rules of events as the Core API's integrations read and change them: status, times as
 * instants, what event.update writes and refuses, and which deletes are refused. Pure, no database.
 */

const published: ChangedEvent = { lifecycle_state: 'published', is_cancelled: false, cancelled_at: null, delegates_max: 10, min_places: 2 };
const labels = (r: { problems: { field: string }[] }) => r.problems.map((p) => p.field);

test('when an event is cancelled either way, a draft, or neither, then its status says Cancelled, Draft or Active', (t) => {
  t.is(eventStatus({ lifecycle_state: 'cancelled', is_cancelled: false }), 'Cancelled');
  t.is(eventStatus({ lifecycle_state: 'published', is_cancelled: true }), 'Cancelled');
  t.is(eventStatus({ lifecycle_state: 'draft', is_cancelled: true }), 'Cancelled');
  t.is(eventStatus({ lifecycle_state: 'draft', is_cancelled: false }), 'Draft');
  t.is(eventStatus({ lifecycle_state: 'published', is_cancelled: false }), 'Active');
});

test('when a day is written as a name, an abbreviation, in any case or as an ISO number, then it is the day the filter keeps; anything else stays as given', (t) => {
  t.deepEqual(['Monday', 'mon', 'TUE', 'wednes', '4', '7', 'Fri'].map(dayOfWeekName), ['Mon', 'Mon', 'Tue', 'Wed', 'Thu', 'Sun', 'Fri']);
  t.deepEqual(['8', 'mo', 'Someday', ''].map(dayOfWeekName), ['8', 'mo', 'Someday', '']);
});

test('when a local date-time is read in its zone, then the instant is in UTC to the second, summer and winter, and a date is its midnight', (t) => {
  t.is(utcInstant('2027-06-10T09:00:00', 'Europe/London'), '2027-06-10T08:00:00Z');
  t.is(utcInstant('2027-12-01T17:00', 'Europe/London'), '2027-12-01T17:00:00Z');
  t.is(utcInstant('2027-07-15T09:00:00.5', 'America/New_York'), '2027-07-15T13:00:00Z');
  t.is(utcInstant('2027-03-10T09:00:00', 'Asia/Kolkata'), '2027-03-10T03:30:00Z');
  t.is(utcInstant('2027-08-25', 'Europe/Paris'), '2027-08-24T22:00:00Z');
  // No zone, or one the runtime does not know: UTC.
  t.is(utcInstant('2027-06-10T09:00', null), '2027-06-10T09:00:00Z');
  t.is(utcInstant('2027-06-10T09:00', 'Mars/Olympus'), '2027-06-10T09:00:00Z');
  t.is(utcInstant(null, 'Europe/London'), null);
  t.is(utcStamp('2027-06-10T08:00:00.123456'), '2027-06-10T08:00:00Z');
  t.is(utcStamp(null), null);
});

test('when an event has a classroom and an online part, then its period runs from the earlier start to the later end; with neither, its dates and times', (t) => {
  const none = {
    classroom_start: null,
    classroom_end: null,
    lms_start: null,
    lms_end: null,
    start_date: null,
    end_date: null,
    start_time: null,
    end_time: null,
  };
  t.deepEqual(
    localPeriod({
      ...none,
      classroom_start: '2027-06-10T09:00:00',
      classroom_end: '2027-06-10T17:00:00',
      lms_start: '2027-06-01T00:00:00',
      lms_end: '2027-06-30T00:00:00',
    }),
    { start: '2027-06-01T00:00:00', end: '2027-06-30T00:00:00' },
  );
  t.deepEqual(
    localPeriod({
      ...none,
      classroom_start: '2027-06-10T09:00:00',
      classroom_end: '2027-06-10T17:00:00',
      lms_start: '2027-06-11T00:00:00',
    }),
    { start: '2027-06-10T09:00:00', end: '2027-06-10T17:00:00' },
  );
  t.deepEqual(localPeriod({ ...none, start_date: '2027-06-10', start_time: '09:30:00', end_date: '2027-06-11' }), {
    start: '2027-06-10T09:30:00',
    end: '2027-06-11T00:00:00',
  });
  t.deepEqual(localPeriod(none), { start: null, end: null });
});

test('when an event is cancelled, then it is marked cancelled for REST and its time is stamped once; published or draft take it back', (t) => {
  t.deepEqual(lifecycleColumns('cancelled', published), {
    columns: { lifecycle_state: 'cancelled', is_cancelled: true },
    stampCancelled: true,
  });
  const cancelled = { ...published, lifecycle_state: 'cancelled', is_cancelled: true, cancelled_at: '2027-01-01T00:00:00' };
  t.false(lifecycleColumns('cancelled', cancelled).stampCancelled);
  // Cancelled through REST before a time was kept: stamped now.
  t.true(lifecycleColumns('cancelled', { ...published, is_cancelled: true }).stampCancelled);
  t.deepEqual(lifecycleColumns('published', cancelled), {
    columns: { lifecycle_state: 'published', is_cancelled: false, cancelled_at: null },
    stampCancelled: false,
  });
  t.deepEqual(lifecycleColumns('draft', published).columns, { lifecycle_state: 'draft', is_cancelled: false, cancelled_at: null });
});

test('when an update gives each key, then each becomes its column; what is not given is left out', (t) => {
  const r = eventChanges(
    {
      lifecycleState: 'cancelled',
      isSoldOut: true,
      internalNotes: 'line 1\nline 2',
      externalNotes: null,
      title: 'New title',
      code: null,
      location: { id: 4 },
      courseTemplate: { id: 9 },
      timeZoneName: 'europe/paris',
      minPlaces: 3,
      maxPlaces: 14,
      targetFillRate: 75,
      registrationDeadline: '2027-06-01T18:00',
      registrationOpensAt: '2027-05-01 09:00',
      remoteMeetingUrl: 'https://meet.example.com/x',
    },
    published,
  );
  t.deepEqual(r.problems, []);
  t.true(r.stampCancelled);
  t.deepEqual(r.columns, {
    lifecycle_state: 'cancelled',
    is_cancelled: true,
    is_sold_out: true,
    internal_notes: 'line 1\nline 2',
    external_notes: null,
    title: 'New title',
    title_cascades: false,
    code: null,
    location_id: 4,
    course_template_id: 9,
    time_zone_name: 'Europe/Paris',
    min_places: 3,
    delegates_max: 14,
    target_fill_rate: 75,
    registration_deadline: '2027-06-01',
    registration_opens_at: '2027-05-01T09:00',
    remote_meeting_url: 'https://meet.example.com/x',
  });
  t.deepEqual(eventChanges({}, published), { problems: [], columns: {}, stampCancelled: false });
  // Leaving its template: the title has nothing more to follow.
  t.deepEqual(eventChanges({ courseTemplate: null }, published).columns, { course_template_id: null, title_cascades: false });
});

test('when an update gives a bad value, then the problem names its field, once', (t) => {
  const cases: [Parameters<typeof eventChanges>[0], string][] = [
    [{ lifecycleState: null }, 'lifecycleState'],
    [{ lifecycleState: 'archived' }, 'lifecycleState'],
    [{ isSoldOut: null }, 'isSoldOut'],
    [{ title: null }, 'title'],
    [{ title: ' ' }, 'title'],
    [{ code: 'x'.repeat(65) }, 'code'],
    [{ internalNotes: 'x'.repeat(10001) }, 'internalNotes'],
    [{ externalNotes: 'a\u0000b' }, 'externalNotes'],
    [{ location: false }, 'locationId'],
    [{ courseTemplate: false }, 'courseTemplateId'],
    [{ timeZoneName: '+01:00' }, 'timeZoneName'],
    [{ timeZoneName: null }, 'timeZoneName'],
    [{ maxPlaces: -1 }, 'maxPlaces'],
    [{ minPlaces: 100001 }, 'minPlaces'],
    [{ maxPlaces: 1 }, 'maxPlaces'],
    [{ minPlaces: 11 }, 'minPlaces'],
    [{ minPlaces: 5, maxPlaces: 4 }, 'minPlaces'],
    [{ targetFillRate: -5 }, 'targetFillRate'],
    [{ registrationDeadline: '01/06/2027' }, 'registrationDeadline'],
    [{ registrationDeadline: '2027-06-01T09:00:00Z' }, 'registrationDeadline'],
    [{ registrationOpensAt: '2027-05-01' }, 'registrationOpensAt'],
    [{ remoteMeetingUrl: 'javascript:alert(1)' }, 'remoteMeetingUrl'],
    [{ remoteMeetingUrl: 'https://x.example.com/a\nb' }, 'remoteMeetingUrl'],
    [{ remoteMeetingUrl: `https://x.example.com/${'a'.repeat(2000)}` }, 'remoteMeetingUrl'],
  ];
  for (const [input, field] of cases) t.deepEqual(labels(eventChanges(input, published)), [field], JSON.stringify(input).slice(0, 80));
  // Places against what the event keeps: clearing the maximum lifts the bound; a minimum within it passes.
  t.deepEqual(labels(eventChanges({ maxPlaces: null, minPlaces: 50 }, published)), []);
  t.deepEqual(labels(eventChanges({ minPlaces: 10 }, published)), []);
});

test('when events are deleted, then ids that name none, events with delegates or orders, and null ids are each refused by position', (t) => {
  const holds = [
    { id: 1, has_delegates: false, has_orders: false },
    { id: 2, has_delegates: true, has_orders: true },
    { id: 3, has_delegates: false, has_orders: true },
  ];
  t.deepEqual(deleteProblems([1, 1], holds), []);
  t.deepEqual(
    deleteProblems([1, 2, 3, 4, false, null], holds).map((p) => [p.field, p.message]),
    [
      ['eventIds[1]', 'Event has delegates and cannot be deleted (cancel it instead)'],
      ['eventIds[2]', 'Event is on orders and cannot be deleted (cancel it instead)'],
      ['eventIds[3]', 'Event not found'],
      ['eventIds[4]', 'Event not found'],
      ['eventIds[5]', 'An event id is required'],
    ],
  );
  t.deepEqual(deleteProblems([], []), []);
  t.deepEqual(
    deleteProblems(
      Array.from({ length: 101 }, () => 1),
      holds,
    ).map((p) => p.field),
    ['eventIds'],
  );
});

/** Shared with the database test (events-rules-sql.test.ts), which checks the list's SQL says the same. */
test('when an event has a maximum or none, places taken or not, or is closed by hand, then placesLeft and eventSoldOut say how many are left and whether it is sold out', (t) => {
  const cases: [{ delegates_max: number | null; is_sold_out: boolean }, number, number | null, boolean][] = [
    [{ delegates_max: null, is_sold_out: false }, 3, null, false],
    [{ delegates_max: null, is_sold_out: true }, 0, null, true],
    [{ delegates_max: 5, is_sold_out: false }, 2, 3, false],
    [{ delegates_max: 5, is_sold_out: false }, 5, 0, true],
    [{ delegates_max: 5, is_sold_out: false }, 7, 0, true],
    [{ delegates_max: 5, is_sold_out: true }, 2, 3, true],
    [{ delegates_max: 0, is_sold_out: false }, 0, 0, true],
  ];
  for (const [event, booked, left, soldOut] of cases) {
    t.is(placesLeft(event, booked), left, JSON.stringify([event, booked]));
    t.is(eventSoldOut(event, booked), soldOut, JSON.stringify([event, booked]));
  }
});

test('when an event is cancelled (with or without a recorded time), a draft or active, then eventCancelledAt is its time of cancelling, else its last change, else null', (t) => {
  const base = { lifecycle_state: 'published', is_cancelled: false, cancelled_at: null, updated_on: '2027-02-03 04:05:06.789' };
  t.is(
    eventCancelledAt({ ...base, lifecycle_state: 'cancelled', is_cancelled: true, cancelled_at: '2027-01-02T03:04:05.5' }),
    '2027-01-02T03:04:05Z',
  );
  t.is(eventCancelledAt({ ...base, is_cancelled: true }), '2027-02-03T04:05:06Z');
  t.is(eventCancelledAt({ ...base, cancelled_at: '2027-01-02T03:04:05' }), null);
  t.is(eventCancelledAt({ ...base, lifecycle_state: 'draft' }), null);
});

test('when a text search is given, then its words are split on spaces and wildcards, each once whatever its case, in the order given', (t) => {
  t.deepEqual(searchWords(['Fire  june', 'FIRE%safety', ' ', 'June']), ['Fire', 'june', 'safety']);
  t.deepEqual(searchWords(['PE_1 100\\%']), ['PE_1', '100\\']);
  t.deepEqual(searchWords([]), []);
  t.is(searchWords([Array.from({ length: 500 }, () => 'a').join(' ')]).length, 1);
  t.is(MAX_SEARCH_WORDS, 10);
});

test('when a time zone is checked against the zones PostgreSQL knows, then an alias it does not know becomes the zone it names; a name it knows stays in its spelling', (t) => {
  const known = knownZones([
    'America/Los_Angeles',
    'Europe/Kyiv',
    'Europe/Kiev',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'Europe/London',
    'UTC',
    'US/Pacific',
    'posix/Europe/London',
  ]);
  t.is(canonicalTimeZone('US/Pacific-New', known), 'America/Los_Angeles');
  t.is(canonicalTimeZone('us/pacific', known), 'US/Pacific');
  t.is(canonicalTimeZone('Europe/Kyiv', known), 'Europe/Kyiv');
  t.is(canonicalTimeZone('asia/kolkata', known), 'Asia/Kolkata');
  t.is(canonicalTimeZone('europe/london', known), 'Europe/London');
  // A PostgreSQL without the newer name: the older one the runtime answers.
  t.is(canonicalTimeZone('Europe/Kyiv', knownZones(['Europe/Kiev'])), 'Europe/Kiev');
  // Neither knows it, or only one of them does: refused.
  t.is(canonicalTimeZone('Mars/Olympus', known), undefined);
  t.is(canonicalTimeZone('posix/Europe/London', known), undefined);
  t.is(canonicalTimeZone('Europe/Paris', known), undefined);
  // The rules take the zones PostgreSQL knows.
  t.deepEqual(eventChanges({ timeZoneName: 'US/Pacific-New' }, published, known).columns, { time_zone_name: 'America/Los_Angeles' });
  t.deepEqual(labels(eventChanges({ timeZoneName: 'Europe/Paris' }, published, known)), ['timeZoneName']);
});
