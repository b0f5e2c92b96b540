import { problem, type Problem } from '../../platform/problems.js';
import { hasNul } from '../../platform/util/dates.js';

/**
 * The rules of staffing events and sessions, pure: who may be staff of which type, what an
 * input may hold, and how a double booking of an instructor is told.
 *
 * - An instructor is a contact with the instructor role (`is_tutor`: what `isInstructor` and a
 *   course template's `approvedInstructors` show); an administrator is a contact with a staff
 *   role (`is_staff`, or `is_admin` above 0). A contact deleted through REST is not found.
 * - An instructor teaches one session at a time: their bookings are the sessions they are staff
 *   of as instructor, and every session of an event they are staff of as instructor unless
 *   that staffing is `requiredSessionsOnly` (then only the sessions they are staff of). Two
 *   bookings clash when their times overlap (a session ending at 12:00 and one starting at 12:00
 *   do not); cancelled sessions, and sessions of cancelled events, book nobody. Administrators
 *   are never double booked: they may run any number of events at once.
 */

export const STAFF_TYPES = ['instructor', 'administrator'] as const;
export type StaffType = (typeof STAFF_TYPES)[number];

/** Staff one addStaffBulk takes, and contacts one session.addStaff takes. */
export const MAX_STAFF_PER_CALL = 100;
/** The longest note on an event's staff member. */
export const MAX_NOTES = 2000;

/** A contact as staffing reads it: its name (for messages) and its roles. */
export interface StaffContact {
  id: number;
  first_name: string | null;
  last_name: string | null;
  is_tutor: boolean;
  is_staff: boolean;
  is_admin: number;
  is_deleted: boolean;
}

/** A contact's name as messages show it. */
export function contactName(c: Pick<StaffContact, 'id' | 'first_name' | 'last_name'>): string {
  const name = [c.first_name, c.last_name].filter((n) => n && n.trim()).join(' ');
  return name || `Contact ${c.id}`;
}

/** Whether a contact may be staff of this type. */
export function mayStaffAs(contact: StaffContact, staffType: StaffType): boolean {
  return staffType === 'instructor' ? contact.is_tutor : contact.is_staff || contact.is_admin > 0;
}

/** Why `contact` (undefined: none with that id) cannot be staff of `staffType`, or nothing. */
export function contactProblems(field: string, given: unknown, contact: StaffContact | undefined, staffType: StaffType): Problem[] {
  if (!contact || contact.is_deleted) return [problem(field, given, 'Contact not found')];
  if (mayStaffAs(contact, staffType)) return [];
  return [
    problem(
      field,
      given,
      staffType === 'instructor'
        ? `${contactName(contact)} is not an instructor: only a contact with the instructor role (isInstructor) can be an instructor`
        : `${contactName(contact)} is not staff: only a contact with a staff role (isStaff or isAdmin) can be an administrator`,
    ),
  ];
}

/** The staff type given, checked: null (or left out) is a problem, not a default. */
export function staffTypeProblems(field: string, value: unknown): Problem[] {
  return typeof value === 'string' && (STAFF_TYPES as readonly string[]).includes(value)
    ? []
    : [problem(field, value ?? null, `${field} must be one of ${STAFF_TYPES.join(', ')}`)];
}

/** What an event staff member's own fields may hold. */
export function eventStaffFieldProblems(
  prefix: string,
  input: { notes?: string | null | undefined; staffRoleGiven?: boolean; staffRoleId?: unknown },
): Problem[] {
  const problems: Problem[] = [];
  if (input.notes != null && (input.notes.length > MAX_NOTES || hasNul(input.notes)))
    problems.push(problem(`${prefix}notes`, input.notes, `notes must be at most ${MAX_NOTES} characters, without NUL characters`));
  if (input.staffRoleGiven)
    problems.push(
      problem(
        `${prefix}staffRoleId`,
        input.staffRoleId,
        'Lectern keeps no staff roles beyond staffType (a contact is an instructor, or staff): leave staffRoleId out and give staffType',
      ),
    );
  return problems;
}

/** A session an instructor is booked on, as a clash names it. */
export interface BookedSession {
  sessionId: number;
  sessionTitle: string;
  eventId: number;
  eventTitle: string | null;
  /** ISO 8601 in UTC, to the second. */
  start: string;
  end: string;
}

/** A booking of `contactId` on `session` whose times overlap their booking on `clashesWith`. */
export interface InstructorClash {
  /** Which of the bookings asked about (an input item, a session checked) it is. */
  item: number;
  contactId: number;
  contactName: string;
  session: BookedSession;
  clashesWith: BookedSession;
}

const described = (s: BookedSession) =>
  `session '${s.sessionTitle}' (${s.sessionId}) of event '${s.eventTitle ?? ''}' (${s.eventId}), ${s.start} to ${s.end}`;

/** The message of a clash: who, the session being booked, and the session and event it clashes with. */
export function clashMessage(clash: InstructorClash): string {
  return `${clash.contactName} cannot teach ${described(clash.session)}: at that time they teach ${described(clash.clashesWith)}`;
}

/** The problem of a clash, on the input field that booked it. */
export function clashProblem(field: string, given: unknown, clash: InstructorClash): Problem {
  return problem(field, given, clashMessage(clash));
}
