/**
 * The public entry of the staff module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { eventStaffByIds, staffOfEvents, staffOfSessions, type EventStaffRow, type SessionStaffRow } from './staff.data.js';
export { instructorClashes } from './staff.service.js';
export {
  clashMessage,
  clashProblem,
  contactName,
  contactProblems,
  mayStaffAs,
  staffTypeProblems,
  STAFF_TYPES,
  type BookedSession,
  type InstructorClash,
  type StaffContact,
  type StaffType,
} from './staff.rules.js';
