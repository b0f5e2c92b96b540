import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import {
  clashesOf,
  deleteEventStaff,
  eventStaffByIds,
  insertEventStaff,
  insertSessionStaff,
  instructorsOfSessionsLocked,
  lockContacts,
  lockEvents,
  lockSessions,
  promotePrimary,
  staffOfEvents,
  updateEventStaff,
  type EventStaffRow,
  type NewEventStaff,
  type SessionTimes,
} from './staff.data.js';
import {
  clashProblem,
  contactProblems,
  eventStaffFieldProblems,
  MAX_STAFF_PER_CALL,
  staffTypeProblems,
  type InstructorClash,
  type StaffContact,
  type StaffType,
} from './staff.rules.js';

export type { EventStaffRow } from './staff.data.js';

/**
 * Staffing events and sessions: one service function per write, each in the caller's
 * transaction, writing everything or nothing. Every booking locks, in this order, the events it
 * books onto (their primary instructor), their sessions (against a change of times), then its
 * contacts (one person's bookings after another's), and only then reads for clashes: two
 * parallel bookings of one instructor onto overlapping sessions book one, and the other is told
 * the clash.
 */

/**
 * One event staff member to add, ids resolved by the face: a number names a row (which may not
 * be there), false names nothing usable (another type's id, garbage).
 */
export interface EventStaffInput {
  contactId: number | false;
  eventId: number | false;
  /** Left out or null: a problem (Lectern does not guess whether someone teaches or runs an event). */
  staffType?: string | null;
  /** Left out: unchanged on a staff member there already (none on a new one); null clears. */
  notes?: string | null;
  /** Left out or null: unchanged on a staff member there already (false on a new one). */
  requiredSessionsOnly?: boolean | null;
  /** A staff role id was given (Lectern keeps none: a problem), and as what. */
  staffRoleGiven?: boolean;
  staffRoleId?: unknown;
  /** The ids as the caller wrote them, for problems. */
  given?: { contactId?: unknown; eventId?: unknown };
}

/**
 * Adds staff to events, all of them or none. `listed`: the input was a list (problems name
 * `input[<i>].<field>`), else one item (`<field>`). Adding a contact that is already staff of
 * the event with that type keeps that staff member (its id, whether primary) and takes the notes
 * and requiredSessionsOnly given: no error, so a sync can run again. The first instructor of an
 * event is its primary one. An instructor is refused a booking that clashes (see staff.rules.ts).
 * Answers the events staffed, in the order given (each once).
 */
export async function addEventStaff(
  db: Db,
  items: readonly EventStaffInput[],
  listed: boolean,
): Promise<{ eventIds: number[] | null; problems: Problem[] }> {
  const at = (i: number, field: string) => (listed ? `input[${i}].${field}` : field);
  const given = (item: EventStaffInput, field: 'contactId' | 'eventId') => item.given?.[field] ?? item[field];
  if (listed && items.length === 0)
    return { eventIds: null, problems: [problem('input', [], 'input must name at least one staff member')] };
  if (items.length > MAX_STAFF_PER_CALL)
    return { eventIds: null, problems: [problem('input', items.length, `input takes at most ${MAX_STAFF_PER_CALL} staff members`)] };

  const problems: Problem[] = [];
  items.forEach((item, i) => {
    problems.push(...staffTypeProblems(at(i, 'staffType'), item.staffType));
    problems.push(...eventStaffFieldProblems(listed ? `input[${i}].` : '', item));
  });
  const eventIds = [...new Set(items.flatMap((it) => (it.eventId === false ? [] : [it.eventId])))].sort((a, b) => a - b);
  const contactIds = [...new Set(items.flatMap((it) => (it.contactId === false ? [] : [it.contactId])))].sort((a, b) => a - b);

  // Locks: events, their sessions, contacts (see staff.data.ts).
  const events = new Set(await lockEvents(db, eventIds));
  const teaches = items.some((it) => it.staffType === 'instructor');
  if (teaches) await lockSessions(db, { eventIds: [...events] });
  const contacts = new Map((await lockContacts(db, contactIds)).map((c) => [c.id, c]));

  items.forEach((item, i) => {
    if (item.eventId === false || !events.has(item.eventId))
      problems.push(problem(at(i, 'eventId'), given(item, 'eventId'), 'Event not found'));
    if (item.contactId === false || typeof item.staffType !== 'string' || staffTypeProblems('', item.staffType).length) {
      if (item.contactId === false) problems.push(problem(at(i, 'contactId'), given(item, 'contactId'), 'Contact not found'));
      return;
    }
    problems.push(
      ...contactProblems(at(i, 'contactId'), given(item, 'contactId'), contacts.get(item.contactId), item.staffType as StaffType),
    );
  });
  if (problems.length) return { eventIds: null, problems };

  type Valid = EventStaffInput & { contactId: number; eventId: number; staffType: StaffType };
  const valid = items as Valid[];
  // What each item will book: requiredSessionsOnly as given, else as its staff member has it already.
  const existing = await staffOfEvents(db, eventIds);
  const key = (eventId: number, contactId: number, type: string) => `${eventId}:${contactId}:${type}`;
  const byKey = new Map(existing.map((s) => [key(s.event_id, s.contact_id, s.staff_type), s]));
  const onlyRequired = (it: Valid) =>
    it.requiredSessionsOnly ?? byKey.get(key(it.eventId, it.contactId, it.staffType))?.required_sessions_only ?? false;
  const clashes = await clashesOf(
    db,
    valid.flatMap((it, i) =>
      it.staffType === 'instructor' && !onlyRequired(it) ? [{ item: i, contact_id: it.contactId, event_id: it.eventId }] : [],
    ),
  );
  if (clashes.length)
    return {
      eventIds: null,
      problems: clashProblems(
        clashes,
        (i) => at(i, 'contactId'),
        (i) => given(valid[i]!, 'contactId'),
      ),
    };

  // Write: new staff members in one statement, changed ones one by one (the events are locked).
  const hasPrimary = new Set(existing.filter((s) => s.is_primary && s.staff_type === 'instructor').map((s) => s.event_id));
  const fresh = new Map<string, NewEventStaff>();
  for (const it of valid) {
    const k = key(it.eventId, it.contactId, it.staffType);
    const there = byKey.get(k);
    if (there) {
      const change: Partial<Pick<EventStaffRow, 'notes' | 'required_sessions_only'>> = {};
      if (it.notes !== undefined && it.notes !== there.notes) change.notes = it.notes;
      if (it.requiredSessionsOnly != null && it.requiredSessionsOnly !== there.required_sessions_only)
        change.required_sessions_only = it.requiredSessionsOnly;
      if (Object.keys(change).length) {
        await updateEventStaff(db, there.id, change);
        Object.assign(there, change);
      }
      continue;
    }
    // The same staff member twice in one call is added once, with the later item's fields.
    const earlier = fresh.get(k);
    const primary = earlier ? earlier.is_primary : it.staffType === 'instructor' && !hasPrimary.has(it.eventId);
    if (primary) hasPrimary.add(it.eventId);
    fresh.set(k, {
      event_id: it.eventId,
      contact_id: it.contactId,
      staff_type: it.staffType,
      is_primary: primary,
      notes: it.notes !== undefined ? it.notes : (earlier?.notes ?? null),
      required_sessions_only: it.requiredSessionsOnly ?? earlier?.required_sessions_only ?? false,
    });
  }
  await insertEventStaff(db, [...fresh.values()]);
  return { eventIds: [...new Set(valid.map((it) => it.eventId))], problems: [] };
}

/** The problems of clashes, one per input item (its first clash). */
function clashProblems(clashes: readonly InstructorClash[], field: (item: number) => string, given: (item: number) => unknown): Problem[] {
  const seen = new Set<number>();
  return clashes.flatMap((c) => {
    if (seen.has(c.item)) return [];
    seen.add(c.item);
    return [clashProblem(field(c.item), given(c.item), c)];
  });
}

/**
 * Removes an event's staff member. When it was the primary instructor, the instructor added
 * next after it becomes primary. `notifyStaff`: Lectern sends staff no notices, so asking for
 * one is refused rather than answered as if sent. Answers the event.
 */
export async function removeEventStaff(
  db: Db,
  staffId: number | false,
  notifyStaff: boolean | null | undefined,
  givenId?: unknown,
): Promise<{ eventId: number | null; problems: Problem[] }> {
  if (notifyStaff === true)
    return {
      eventId: null,
      problems: [problem('notifyStaff', true, 'Lectern sends staff no notifications: leave notifyStaff out or send false')],
    };
  const notFound = { eventId: null, problems: [problem('staffId', givenId ?? staffId, 'Staff not found')] };
  if (staffId === false) return notFound;
  const [row] = await eventStaffByIds(db, [staffId]);
  if (!row) return notFound;
  await lockEvents(db, [row.event_id]);
  const gone = await deleteEventStaff(db, staffId);
  if (!gone) return notFound;
  if (gone.is_primary) await promotePrimary(db, gone.event_id);
  return { eventId: gone.event_id, problems: [] };
}

/** Staff to add to a session, ids resolved by the face (false: names nothing usable; null: left out). */
export interface SessionStaffInput {
  sessionId: number | false | null | undefined;
  contactIds: (number | false | null)[] | null | undefined;
  staffType: string | null | undefined;
  /** The ids as the caller wrote them, for problems. */
  given?: { sessionId?: unknown; contactIds?: unknown[] };
}

/**
 * Adds contacts to a session's staff, all or none; a contact already staff of the session with
 * that type stays as it is. An instructor is refused a booking that clashes. Answers the session.
 */
export async function addSessionStaff(db: Db, input: SessionStaffInput): Promise<{ sessionId: number | null; problems: Problem[] }> {
  const ids = input.contactIds ?? [];
  if (ids.length > MAX_STAFF_PER_CALL)
    return {
      sessionId: null,
      problems: [problem('contactIds', ids.length, `contactIds takes at most ${MAX_STAFF_PER_CALL} contacts at once`)],
    };
  const problems: Problem[] = [...staffTypeProblems('staffType', input.staffType)];
  const givenContact = (i: number) => input.given?.contactIds?.[i] ?? input.contactIds?.[i] ?? null;
  if (!ids.length) problems.push(problem('contactIds', input.contactIds ?? null, 'contactIds must name at least one contact'));
  const sessionGiven = input.given?.sessionId ?? input.sessionId ?? null;
  if (input.sessionId == null) problems.push(problem('sessionId', null, 'sessionId is required'));

  // Locks: the session, then the contacts (see staff.data.ts).
  const session = typeof input.sessionId === 'number' ? (await lockSessions(db, { sessionIds: [input.sessionId] }))[0] : undefined;
  if (input.sessionId != null && !session) problems.push(problem('sessionId', sessionGiven, 'Session not found'));
  const contactIds = [...new Set(ids.flatMap((id) => (typeof id === 'number' ? [id] : [])))].sort((a, b) => a - b);
  const contacts = new Map<number, StaffContact>((await lockContacts(db, contactIds)).map((c) => [c.id, c]));
  const staffType = staffTypeProblems('', input.staffType).length ? undefined : (input.staffType as StaffType);
  ids.forEach((id, i) => {
    if (typeof id !== 'number') problems.push(problem(`contactIds[${i}]`, givenContact(i), 'Contact not found'));
    else if (staffType) problems.push(...contactProblems(`contactIds[${i}]`, givenContact(i), contacts.get(id), staffType));
  });
  if (problems.length || !session || !staffType) return { sessionId: null, problems };

  const numbers = ids as number[];
  if (staffType === 'instructor') {
    const clashes = await clashesOf(
      db,
      numbers.map((contact_id, item) => ({ item, contact_id, session_id: session.id })),
    );
    if (clashes.length) return { sessionId: null, problems: clashProblems(clashes, (i) => `contactIds[${i}]`, givenContact) };
  }
  await insertSessionStaff(
    db,
    [...new Set(numbers)].map((contact_id) => ({ session_id: session.id, contact_id, staff_type: staffType })),
  );
  return { sessionId: session.id, problems: [] };
}

/**
 * The clashes sessions would have with their instructors' other bookings, were their times
 * these (`startsAt`/`endsAt`, instants; left out: as stored, so it may also be called after the
 * change is written, in its transaction). For whatever makes a session book its instructors at
 * another time: `session.update` changing `start`/`end`, or a session leaving `cancelled`. In the
 * change's transaction: lock the sessions first (any row lock: `select ... for update`, or the
 * update itself), then call this, which locks their instructors (after the sessions, in the
 * order every booking takes them), and refuse the change when it answers a clash (`clashProblem`
 * words it), writing nothing. A session added to an event that has staff: lock the event first
 * (`for no key update`), insert, then call this with the new sessions. `item` in each clash is
 * the index of its session in `sessions`.
 */
export async function instructorClashes(
  db: Db,
  sessions: readonly { id: number; startsAt?: string | null; endsAt?: string | null }[],
): Promise<InstructorClash[]> {
  if (!sessions.length) return [];
  const index = new Map(sessions.map((s, i) => [s.id, i]));
  const booked = await instructorsOfSessionsLocked(
    db,
    sessions.map((s) => s.id),
  );
  if (!booked.length) return [];
  const times: SessionTimes[] = sessions.flatMap((s) =>
    s.startsAt || s.endsAt ? [{ session_id: s.id, starts_at: s.startsAt ?? null, ends_at: s.endsAt ?? null }] : [],
  );
  return clashesOf(
    db,
    booked.map((b) => ({ item: index.get(b.session_id)!, contact_id: b.contact_id, session_id: b.session_id })),
    times,
  );
}
