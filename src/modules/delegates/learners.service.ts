import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { eventsByIds, lockEventsForCapacity, placesBooked } from '../events/index.js';
import { lockDelegate, type DelegateRow } from './delegates.data.js';
import {
  clearCancellation,
  contactsWithActivePlaces,
  insertLearners,
  keepContacts,
  keepSession,
  lockLearner,
  touchLearner,
  upsertAttendance,
} from './learners.data.js';
import {
  contactListProblems,
  isCancelledEvent,
  notesProblems,
  shortfall,
  shortfallMessage,
  type GivenId,
  type PlacesShortfall,
} from './registration.rules.js';

/**
 * Learners' writes: places held on events (capacity), contacts registered on an event, a
 * cancelled learner reactivated, attendance recorded. Each runs in the caller's transaction and writes nothing when it
 * answers problems.
 */

/**
 * Capacity, decided in one place for every path that holds it (the order pipeline's registration
 * when the tenant prevents overbooking; Core GraphQL's registerContacts and reactivate always):
 * locks the events (`FOR UPDATE`, in id order, so concurrent callers cannot deadlock), then counts
 * their places booked in a statement of its own (which sees every registration committed before
 * the lock was granted) and answers the first event with fewer places left than `wanted`. The
 * locks are held until the caller's transaction ends, so the places counted stay free until the
 * caller has written its rows: concurrent callers take turns per event, and never overbook it.
 * Callers take it as late as they can (after every check that needs no lock), to hold it briefly.
 */
export async function holdPlaces(db: Db, wanted: ReadonlyMap<number, number>): Promise<PlacesShortfall | undefined> {
  const ids = [...wanted.keys()].sort((a, b) => a - b);
  if (!ids.length) return undefined;
  const events = await lockEventsForCapacity(db, ids);
  const booked = await placesBooked(db, ids);
  return shortfall(events, booked, wanted);
}

/** What `event { registerContacts }` is given, its ids read by the face. */
export interface RegisterContactsInput {
  contacts: GivenId[];
  notes?: string | null | undefined;
  /** The contact the learners' communications go to (delegates.comms_contact_id); undefined when what was sent names no contact. */
  communicationsContact?: GivenId | null | undefined;
}

/**
 * Registers contacts on an event, all or none: each contact gets a learner (a named delegate
 * row, as REST's `POST event/delegates` and an order's registration make), provided the event
 * exists and is not cancelled, every contact exists and holds no active place on it yet, and the
 * event has a place for each (holdPlaces). A contact whose place was cancelled gets a new one
 * (reactivate brings the old one back instead).
 */
export async function registerContacts(
  db: Db,
  eventId: GivenId,
  input: RegisterContactsInput,
): Promise<{ learners: DelegateRow[]; problems: Problem[] }> {
  const refused = (problems: Problem[]) => ({ learners: [], problems });
  const problems = [...contactListProblems(input.contacts), ...notesProblems(input.notes)];
  const comms = input.communicationsContact;
  if (comms && comms.id === undefined) problems.push(problem('communicationsContactId', comms.given, 'Contact not found'));
  const [event] = eventId.id === undefined ? [] : await eventsByIds(db, [eventId.id]);
  if (!event) problems.unshift(problem('eventId', eventId.given, 'Event not found'));
  else if (isCancelledEvent(event)) problems.unshift(problem('eventId', eventId.given, 'The event is cancelled: it takes no learners'));
  if (problems.length || !event) return refused(problems);

  const ids = input.contacts.map((c) => c.id!);
  // Held until the learners are written: a contact deleted meanwhile is not found, never a failed foreign key.
  const known = new Set(await keepContacts(db, comms?.id !== undefined ? [...ids, comms.id] : ids));
  for (const c of input.contacts) if (!known.has(c.id!)) problems.push(problem('contacts', c.given, 'Contact not found'));
  if (comms?.id !== undefined && !known.has(comms.id)) problems.push(problem('communicationsContactId', comms.given, 'Contact not found'));
  if (problems.length) return refused(problems);

  // From here on the event is locked: the places counted and the registrations read stay as they are until this transaction ends.
  const short = await holdPlaces(db, new Map([[event.id, ids.length]]));
  const registered = new Set(await contactsWithActivePlaces(db, event.id, ids));
  for (const c of input.contacts)
    if (registered.has(c.id!)) problems.push(problem('contacts', c.given, 'This contact is already registered on the event'));
  if (short && !problems.length) problems.push(problem('eventId', eventId.given, shortfallMessage(short)));
  if (problems.length) return refused(problems);

  const learners = await insertLearners(
    db,
    ids.map((contactId) => ({
      event_id: event.id,
      contact_id: contactId,
      comms_contact_id: comms?.id ?? null,
      notes: input.notes ?? null,
    })),
  );
  return { learners, problems: [] };
}

/**
 * Makes a cancelled learner active again, on the place it had: refused when it is active already,
 * when its event is cancelled, when its contact holds another active place on the event, or when
 * the event has no place left (holdPlaces). The learner is locked first, so two reactivations of
 * one learner take turns.
 */
export async function reactivateLearner(db: Db, learnerId: GivenId): Promise<{ learner: DelegateRow | null; problems: Problem[] }> {
  const refused = (message: string) => ({ learner: null, problems: [problem('learnerId', learnerId.given, message)] });
  const row = learnerId.id === undefined ? undefined : await lockDelegate(db, learnerId.id);
  if (!row || row.contact_id === null) return refused('Learner not found');
  if (row.cancelled_date === null) return refused('The learner is active already: only a cancelled learner can be reactivated');
  const [event] = await eventsByIds(db, [row.event_id]);
  if (!event || isCancelledEvent(event)) return refused("The learner's event is cancelled: it takes no learners");
  const short = await holdPlaces(db, new Map([[row.event_id, 1]]));
  if ((await contactsWithActivePlaces(db, row.event_id, [row.contact_id])).length)
    return refused("The learner's contact holds another active place on this event");
  if (short) return refused(shortfallMessage(short));
  return { learner: await clearCancellation(db, row.id), problems: [] };
}

/** One attendance to record: the learner, the session (as sent), whether the learner attended. */
export interface AttendanceInput {
  learner: GivenId;
  /** The session's own event is read (and the session held) when the attendance is recorded. */
  session: GivenId;
  attended: boolean | null | undefined;
}

/**
 * Records whether a learner attended a session of its event (replacing what was recorded for that
 * session before). Refused when the learner or the session is not there, when the session is not
 * one of the learner's event's, or when the learner is cancelled. The learner and the session are
 * held from the checks to the write, so neither is deleted (REST DELETE event/delegates,
 * session.delete) nor the learner cancelled in between.
 */
export async function recordAttendance(db: Db, input: AttendanceInput): Promise<{ learner: DelegateRow | null; problems: Problem[] }> {
  const problems: Problem[] = [];
  if (typeof input.attended !== 'boolean') problems.push(problem('attended', input.attended, 'attended is required: true or false'));
  const learner = input.learner.id === undefined ? undefined : await lockLearner(db, input.learner.id);
  if (!learner) problems.push(problem('learnerId', input.learner.given, 'Learner not found'));
  else if (learner.cancelled_date !== null)
    problems.push(problem('learnerId', input.learner.given, 'The learner is cancelled: reactivate it before recording its attendance'));
  const session = input.session.id === undefined ? undefined : await keepSession(db, input.session.id);
  if (!session) problems.push(problem('sessionId', input.session.given, 'Session not found'));
  else if (learner && session.event_id !== learner.event_id)
    problems.push(problem('sessionId', input.session.given, "The session is not a session of the learner's event"));
  if (problems.length || !learner || !session) return { learner: null, problems };
  await upsertAttendance(db, { delegate_id: learner.id, session_id: session.id, attended: input.attended as boolean });
  await touchLearner(db, learner.id);
  return { learner, problems: [] };
}
