import { problem, type Problem } from '../../platform/problems.js';
import { hasNul } from '../../platform/util/dates.js';

/**
 * The rules of placing contacts on events, as pure functions: capacity (the one decision every
 * path that holds places makes: the order pipeline's registration, Core GraphQL's
 * `event { registerContacts }` and `learner { reactivate }`; see holdPlaces in
 * learners.service.ts), and what a registration or a learner's change may be given.
 */

/** Contacts one `registerContacts` call may place. */
export const MAX_CONTACTS_PER_CALL = 100;
/** Items one `recordAttendances` takes: each is a few statements of the request's transaction, one after another. */
export const MAX_ATTENDANCES_PER_CALL = 500;
/** A learner's notes' limit (as REST's delegate notes). */
export const MAX_NOTES_LENGTH = 10000;

/** An event that has fewer places left than wanted: its title, the places left and those wanted. */
export interface PlacesShortfall {
  id: number;
  title: string;
  left: number;
  need: number;
}

/**
 * The first event (in the order given) that has fewer places left than wanted, if any: places
 * left are its maximum less the places booked; an event without a maximum has no limit.
 */
export function shortfall(
  events: readonly { id: number; title: string; delegates_max: number | null }[],
  booked: ReadonlyMap<number, number>,
  wanted: ReadonlyMap<number, number>,
): PlacesShortfall | undefined {
  for (const e of events) {
    if (e.delegates_max === null) continue;
    const left = e.delegates_max - (booked.get(e.id) ?? 0);
    const need = wanted.get(e.id) ?? 0;
    if (need > left) return { id: e.id, title: e.title, left: Math.max(0, left), need };
  }
  return undefined;
}

/** A record named by the caller: as it was sent (what a problem shows), and its row id (undefined when what was sent names none). */
export interface GivenId {
  given: unknown;
  id: number | undefined;
}

/** The problems of the list of contacts to register: none given, too many, one that is no contact id, one listed twice. */
export function contactListProblems(contacts: readonly GivenId[]): Problem[] {
  if (!contacts.length) return [problem('contacts', null, 'contacts must list at least one contact')];
  if (contacts.length > MAX_CONTACTS_PER_CALL)
    return [problem('contacts', null, `contacts may list at most ${MAX_CONTACTS_PER_CALL} contacts (${contacts.length} given)`)];
  const problems: Problem[] = [];
  const seen = new Set<number>();
  for (const c of contacts) {
    if (c.id === undefined) problems.push(problem('contacts', c.given, 'Contact not found'));
    else if (seen.has(c.id)) problems.push(problem('contacts', c.given, 'This contact is listed more than once'));
    else seen.add(c.id);
  }
  return problems;
}

/** Notes of a learner: text of at most MAX_NOTES_LENGTH characters without NUL. */
export function notesProblems(notes: string | null | undefined): Problem[] {
  return notes == null || (notes.length <= MAX_NOTES_LENGTH && !hasNul(notes))
    ? []
    : [problem('notes', notes.slice(0, 100), `notes must be text of at most ${MAX_NOTES_LENGTH} characters without NUL`)];
}

/** Whether an event takes no learners: it is cancelled. */
export const isCancelledEvent = (e: { lifecycle_state: string; is_cancelled: boolean }): boolean =>
  e.lifecycle_state === 'cancelled' || e.is_cancelled;

/** What a caller is told when an event has too few places. */
export function shortfallMessage(s: PlacesShortfall): string {
  return s.left === 0
    ? `The event is full: it has no places left (${s.need} wanted)`
    : `The event has ${s.left} place(s) left; ${s.need} wanted`;
}
