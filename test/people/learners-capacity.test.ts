import test from 'ava';
import type { Knex } from 'knex';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Capacity under concurrency (issue 25, "Done when"): places are decided in one place
 * (holdPlaces, the delegates module), which the order pipeline's registration, `event {
 * registerContacts }` and `learner { reactivate }` all call. Real parallel HTTP requests, each its
 * own transaction; the pool is large enough that many of them wait on the event at once.
 */
let f: GraphQLFixture;
const REGISTER = `mutation($eventId: ID!, $input: EventRegisterContactsInput!) { event { registerContacts(eventId: $eventId, input: $input) { errors { label message value } event { id title bookedPlaces remainingPlaces } } } }`;
const REACTIVATE = `mutation($learnerId: ID!) { learner { reactivate(input: { learnerId: $learnerId }) { errors { label value message } } } }`;

const db = <T>(work: (db: Knex) => Promise<T>) => withTenant(f.ctx.rt.knex, f.tenant, work);

/** `n` new contacts' ids. */
const contacts = (k: Knex, n: number, label: string) =>
  k('contacts')
    .insert(Array.from({ length: n }, (_, i) => ({ first_name: `${label}${i}`, last_name: 'Parallel' })))
    .returning('id')
    .then((rows: { id: number }[]) => rows.map((r) => r.id));

/** Active learners on the event, as the table holds them. */
const active = (eventId: number) =>
  db(async (k) => Number((await k('delegates').where({ event_id: eventId }).whereNull('cancelled_date').count('* as n'))[0]!.n));

test.before(async () => {
  // Half the pool runs at once for one tenant (TenantGate): 20 transactions contend for the event.
  f = await graphqlFixture('lrncap', { env: { DB_POOL_MAX: '40' } });
});
test.after.always(async () => f?.close());

test.serial(
  'when 50 registerContacts of one contact each run in parallel on an event with 10 places, then exactly 10 are registered',
  async (t) => {
    const { eventId, people } = await db(async (k) => ({
      eventId: ((await k('events').insert({ title: 'Ten places', delegates_max: 10 }).returning('id')) as { id: number }[])[0]!.id,
      people: await contacts(k, 50, 'p'),
    }));
    const answers = await Promise.all(
      people.map((id) =>
        f.gql(f.admin, REGISTER, { eventId: toGlobalId('Event', eventId), input: { contacts: [toGlobalId('Contact', id)] } }),
      ),
    );
    for (const a of answers) t.is(a.status, 200, a.text);
    const payloads = answers.map((a) => a.json.data.event.registerContacts);
    const registered = payloads.filter((p) => p.errors.length === 0);
    const refused = payloads.filter((p) => p.errors.length > 0);
    t.is(registered.length, 10);
    t.is(refused.length, 40);
    for (const p of refused) {
      t.deepEqual(p.errors, [
        { label: 'eventId', message: 'The event is full: it has no places left (1 wanted)', value: toGlobalId('Event', eventId) },
      ]);
      t.is(p.event, null);
    }
    // Each success saw its own place taken: the places booked it answered are 1 to 10, once each.
    t.deepEqual(
      registered.map((p) => p.event.bookedPlaces).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    t.is(await active(eventId), 10);
    const after = await f.data(f.admin, `query($id: ID!) { node(id: $id) { ... on Event { bookedPlaces remainingPlaces isSoldOut } } }`, {
      id: toGlobalId('Event', eventId),
    });
    t.deepEqual(after.node, { bookedPlaces: 10, remainingPlaces: 0, isSoldOut: true });
  },
);

test.serial(
  'when registerContacts of several contacts race, then each call is all or none and the event is never overbooked',
  async (t) => {
    const { eventId, people } = await db(async (k) => ({
      eventId: ((await k('events').insert({ title: 'Seven places', delegates_max: 7 }).returning('id')) as { id: number }[])[0]!.id,
      people: await contacts(k, 30, 'g'),
    }));
    // Ten calls of three contacts each: at most two fit (6 places), the seventh place stays free.
    const calls = Array.from({ length: 10 }, (_, i) => people.slice(i * 3, i * 3 + 3));
    const answers = await Promise.all(
      calls.map((group) =>
        f.gql(f.admin, REGISTER, {
          eventId: toGlobalId('Event', eventId),
          input: { contacts: group.map((id) => toGlobalId('Contact', id)) },
        }),
      ),
    );
    const ok = calls.filter((_, i) => answers[i]!.json.data.event.registerContacts.errors.length === 0);
    t.is(ok.length, 2);
    const stored = await db(async (k) => (await k('delegates').where({ event_id: eventId }).pluck('contact_id')) as number[]);
    t.deepEqual(
      stored.sort((a, b) => a - b),
      ok.flat().sort((a, b) => a - b),
    );
  },
);

test.serial('when reactivations and registrations race for the same places, then they share the one count', async (t) => {
  const { eventId, cancelled, fresh } = await db(async (k) => {
    const eventId = ((await k('events').insert({ title: 'Five places', delegates_max: 5 }).returning('id')) as { id: number }[])[0]!.id;
    const old = await contacts(k, 15, 'c');
    const cancelled = (
      (await k('delegates')
        .insert(old.map((contact_id) => ({ event_id: eventId, contact_id, cancelled_date: '2027-01-01' })))
        .returning('id')) as { id: number }[]
    ).map((r) => r.id);
    return { eventId, cancelled, fresh: await contacts(k, 15, 'n') };
  });
  const requests = [
    ...cancelled.map((id) => f.gql(f.admin, REACTIVATE, { learnerId: toGlobalId('Learner', id) })),
    ...fresh.map((id) =>
      f.gql(f.admin, REGISTER, { eventId: toGlobalId('Event', eventId), input: { contacts: [toGlobalId('Contact', id)] } }),
    ),
  ];
  const answers = await Promise.all(requests);
  const succeeded = answers.filter((a) => {
    const payload = a.json.data.learner?.reactivate ?? a.json.data.event?.registerContacts;
    return payload.errors.length === 0;
  });
  t.is(succeeded.length, 5);
  t.is(await active(eventId), 5);
});
