import test from 'ava';
import {
  clashMessage,
  contactName,
  contactProblems,
  mayStaffAs,
  staffTypeProblems,
  type StaffContact,
} from '../../src/modules/staff/index.js';
import { eventStaffFieldProblems } from '../../src/modules/staff/staff.rules.js';

/** The staffing rules, pure: who may be staff of which type, and how a clash is told. */
const person = (roles: Partial<StaffContact>): StaffContact => ({
  id: 7,
  first_name: 'Ada',
  last_name: 'Lovelace',
  is_tutor: false,
  is_staff: false,
  is_admin: 0,
  is_deleted: false,
  ...roles,
});

test('when a contact has the instructor role, then it may teach; staff and administrators may run events', (t) => {
  t.true(mayStaffAs(person({ is_tutor: true }), 'instructor'));
  t.false(mayStaffAs(person({ is_staff: true, is_admin: 2 }), 'instructor'));
  t.true(mayStaffAs(person({ is_staff: true }), 'administrator'));
  t.true(mayStaffAs(person({ is_admin: 1 }), 'administrator'));
  t.false(mayStaffAs(person({ is_tutor: true }), 'administrator'));
});

test('when a contact is missing, deleted or without the role, then the problem names the field and says why', (t) => {
  t.deepEqual(contactProblems('contactId', 'x', undefined, 'instructor'), [
    { field: 'contactId', value: 'x', message: 'Contact not found' },
  ]);
  t.deepEqual(
    contactProblems('contactId', 'x', person({ is_tutor: true, is_deleted: true }), 'instructor')[0]!.message,
    'Contact not found',
  );
  t.regex(contactProblems('contactIds[2]', 'x', person({}), 'instructor')[0]!.message, /^Ada Lovelace is not an instructor/);
  t.deepEqual(contactProblems('contactId', 'x', person({ is_tutor: true }), 'instructor'), []);
  t.is(contactName({ id: 9, first_name: null, last_name: ' ' }), 'Contact 9');
});

test('when the staff type is missing or unknown, or a staff role id or a long note is given, then each is a problem', (t) => {
  t.deepEqual(staffTypeProblems('staffType', null), [
    { field: 'staffType', value: null, message: 'staffType must be one of instructor, administrator' },
  ]);
  t.deepEqual(staffTypeProblems('staffType', 'instructor'), []);
  t.deepEqual(
    eventStaffFieldProblems('input[0].', { notes: 'x'.repeat(2001), staffRoleGiven: true, staffRoleId: 'r' }).map((p) => p.field),
    ['input[0].notes', 'input[0].staffRoleId'],
  );
  t.deepEqual(eventStaffFieldProblems('', { notes: 'x'.repeat(2000) }), []);
});

test('when a clash is told, then it names who, the session booked and the session and event it clashes with', (t) => {
  const at = (sessionId: number, sessionTitle: string, eventId: number, eventTitle: string) => ({
    sessionId,
    sessionTitle,
    eventId,
    eventTitle,
    start: '2027-03-02T13:00:00Z',
    end: '2027-03-02T15:00:00Z',
  });
  t.is(
    clashMessage({
      item: 0,
      contactId: 7,
      contactName: 'Ada Lovelace',
      session: at(3, 'Drill', 2, 'Fire'),
      clashesWith: at(1, 'Day 2', 1, 'First Aid'),
    }),
    "Ada Lovelace cannot teach session 'Drill' (3) of event 'Fire' (2), 2027-03-02T13:00:00Z to 2027-03-02T15:00:00Z: at that time they teach session 'Day 2' (1) of event 'First Aid' (1), 2027-03-02T13:00:00Z to 2027-03-02T15:00:00Z",
  );
});
