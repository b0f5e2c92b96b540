import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { clashProblem, instructorClashes } from '../staff/index.js';
import { checkBaseValues, SESSION_VALUES, type DefinitionRow, type ValueInput } from '../custom-fields/index.js';
import { databaseTimeZones, type EventRow } from './events.data.js';
import {
  copySessions,
  deleteSessionRows,
  insertSessions,
  lockSessions,
  updateSessionRow,
  writeSessionValues,
  type SessionRow,
} from './sessions.data.js';
import {
  NEW_SESSION_STATE,
  planSessions,
  plannedInstants,
  sessionChanges,
  type SessionChange,
  type SessionLayout,
} from './sessions.rules.js';

export type { SessionRow } from './sessions.data.js';

/**
 * Sessions as the GraphQL API makes and changes them: the sessions a new event gets in the
 * transaction that creates it (sessions.rules.ts says which), a duplicate's copies, and
 * `session { update delete }`. A rejected write answers problems and writes nothing.
 */

/** The most sessions one `session.delete` takes. */
export const MAX_DELETED_SESSIONS = 500;

/** The layout a template gives its events' sessions (per_day unless it says single). */
export const layoutOf = (template: { session_layout?: string | null } | undefined): SessionLayout =>
  template?.session_layout === 'single' ? 'single' : 'per_day';

/**
 * Makes a new event's sessions (see planSessions), each draft, at the event's location and venue,
 * on its clock. Answers them in start order.
 */
export async function createEventSessions(db: Db, event: EventRow, layout: SessionLayout): Promise<SessionRow[]> {
  const planned = planSessions(event, layout);
  return insertSessions(
    db,
    planned.map((p) => ({
      event_id: event.id,
      title: p.title,
      ...plannedInstants(p, event.time_zone_name),
      time_zone_name: event.time_zone_name ?? 'UTC',
      lifecycle_state: NEW_SESSION_STATE,
      venue_id: event.venue_id,
      location_id: event.location_id,
    })),
  );
}

/** A duplicate event's sessions: copies of the source's, as they are, with their custom field values. */
export function copyEventSessions(db: Db, fromEventId: number, toEventId: number): Promise<SessionRow[]> {
  return copySessions(db, fromEventId, toEventId);
}

export interface SessionUpdateInput extends SessionChange {
  /** Values of the session's custom fields (definitions that apply to sessions); null removes one. */
  customFieldValues?: ValueInput[] | null;
}

/**
 * `session.update`: changes what is given (see sessionChanges) and sets the custom field values
 * given, the others staying; the time of the change is recorded. `definitions`: the tenant's.
 * `nameContacts`: whether a refusal for an instructor's clash may name the instructor (the caller
 * may read contacts); otherwise it says `Contact <id>`, as it does for a contact without a name.
 */
export async function updateSession(
  db: Db,
  id: number,
  input: SessionUpdateInput,
  definitions: Iterable<DefinitionRow>,
  nameContacts = true,
): Promise<{ session: SessionRow | null; problems: Problem[] }> {
  const [before] = await lockSessions(db, [id]);
  if (!before) return { session: null, problems: [problem('sessionId', id, 'Session not found')] };
  const change = sessionChanges(input, before, await databaseTimeZones(db));
  const values = checkBaseValues(definitions, SESSION_VALUES, input.customFieldValues ?? []);
  const problems = [...change.problems, ...values.problems];
  if (problems.length) return { session: null, problems };
  // New times, or a session no longer cancelled, book its instructors anew: not at a time they teach elsewhere.
  const { starts_at: startsAt, ends_at: endsAt, lifecycle_state: state } = change.columns;
  const rebooks =
    startsAt !== undefined ||
    endsAt !== undefined ||
    (before.lifecycle_state === 'cancelled' && state !== undefined && state !== 'cancelled');
  if (rebooks) {
    const clashes = await instructorClashes(db, [{ id, startsAt: startsAt ?? null, endsAt: endsAt ?? null }]);
    const field = startsAt !== undefined ? 'start' : endsAt !== undefined ? 'end' : 'lifecycleState';
    const given = field === 'start' ? input.start : field === 'end' ? input.end : input.lifecycleState;
    if (clashes.length)
      return {
        session: null,
        problems: clashes.map((c) => clashProblem(field, given, nameContacts ? c : { ...c, contactName: `Contact ${c.contactId}` })),
      };
  }
  const session = await updateSessionRow(db, id, change.columns);
  await writeSessionValues(db, id, values.values);
  return { session, problems: [] };
}

/**
 * `session.delete`: deletes the sessions named (`false`: an id that names no session; null: none
 * given), all or none: one that is not there refuses the whole call. Answers the ids deleted.
 */
export async function deleteSessions(db: Db, requested: (number | false | null)[]): Promise<{ deleted: number[]; problems: Problem[] }> {
  if (requested.length > MAX_DELETED_SESSIONS)
    return { deleted: [], problems: [problem('sessionIds', null, `At most ${MAX_DELETED_SESSIONS} sessions at once`)] };
  if (!requested.length) return { deleted: [], problems: [problem('sessionIds', null, 'Name at least one session')] };
  const ids = [...new Set(requested.filter((id): id is number => typeof id === 'number'))];
  const found = new Set((await lockSessions(db, ids)).map((s) => s.id));
  const problems = requested.flatMap((id, i) =>
    typeof id === 'number' && found.has(id) ? [] : [problem(`sessionIds[${i}]`, id === false ? null : id, 'Session not found')],
  );
  if (problems.length) return { deleted: [], problems };
  await deleteSessionRows(db, ids);
  return { deleted: ids, problems: [] };
}
