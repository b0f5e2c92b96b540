import test from 'ava';
import {
  contactListProblems,
  MAX_CONTACTS_PER_CALL,
  notesProblems,
  shortfall,
  shortfallMessage,
} from '../../src/modules/delegates/registration.rules.js';

/** The rules of placing contacts on events (registration.rules.ts), without a database. */

test('when an event has fewer places left than wanted, then shortfall names the first such event; events without a maximum never do', (t) => {
  const events = [
    { id: 1, title: 'Unlimited', delegates_max: null },
    { id: 2, title: 'First Aid', delegates_max: 5 },
    { id: 3, title: 'Fire Safety', delegates_max: 1 },
  ];
  const wanted = new Map([
    [1, 100],
    [2, 3],
    [3, 1],
  ]);
  t.is(shortfall(events, new Map([[2, 2]]), wanted), undefined);
  t.deepEqual(shortfall(events, new Map([[2, 3]]), wanted), { id: 2, title: 'First Aid', left: 2, need: 3 });
  // Booked past the maximum (REST does not prevent overbooking): no place left, never fewer than none.
  t.deepEqual(
    shortfall(
      events,
      new Map([
        [2, 0],
        [3, 4],
      ]),
      wanted,
    ),
    { id: 3, title: 'Fire Safety', left: 0, need: 1 },
  );
  t.is(shortfallMessage({ id: 3, title: 'x', left: 0, need: 1 }), 'The event is full: it has no places left (1 wanted)');
  t.is(shortfallMessage({ id: 2, title: 'x', left: 2, need: 3 }), 'The event has 2 place(s) left; 3 wanted');
});

test('when the contacts to register are none, too many, not contacts or listed twice, then each is a problem of contacts', (t) => {
  t.deepEqual(contactListProblems([]), [{ field: 'contacts', value: null, message: 'contacts must list at least one contact' }]);
  const many = Array.from({ length: MAX_CONTACTS_PER_CALL + 1 }, (_, i) => ({ given: `c${i}`, id: i + 1 }));
  t.is(
    contactListProblems(many)[0]!.message,
    `contacts may list at most ${MAX_CONTACTS_PER_CALL} contacts (${MAX_CONTACTS_PER_CALL + 1} given)`,
  );
  t.deepEqual(contactListProblems(many.slice(0, MAX_CONTACTS_PER_CALL)), []);
  t.deepEqual(
    contactListProblems([
      { given: 'a', id: 1 },
      { given: 'garbage', id: undefined },
      { given: 'a again', id: 1 },
    ]),
    [
      { field: 'contacts', value: 'garbage', message: 'Contact not found' },
      { field: 'contacts', value: 'a again', message: 'This contact is listed more than once' },
    ],
  );
});

test('when notes are too long or hold NUL, then they are a problem; none and ordinary text are not', (t) => {
  t.deepEqual(notesProblems(undefined), []);
  t.deepEqual(notesProblems(null), []);
  t.deepEqual(notesProblems('Booked by phone'), []);
  t.is(notesProblems('x'.repeat(10001))[0]!.field, 'notes');
  t.is(notesProblems('a\u0000b')[0]!.message, 'notes must be text of at most 10000 characters without NUL');
});
