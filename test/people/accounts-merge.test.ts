import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import type { Knex } from '../../src/platform/db/knex.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * `account { merge(input: { fromAccount, toAccount }) }` as the merge workflow sends it
 * (real-clients.md section 5.B): everything of the old account moves to the one kept, in one
 * transaction, and nothing names the old one afterwards, in any table whose foreign key
 * references companies (read from the catalogue here too, so a table added later is checked
 * without naming it), nor in contacts' and events' `account_id`. Both APIs then answer the
 * contacts under the account kept.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const aid = (name: string) => toGlobalId('Account', ids[name]!);

const MERGE = (from: string, to: string) =>
  `mutation { account { merge(input: { fromAccount: "${from}", toAccount: "${to}" }) { account { id name } errors { label message value } } } }`;

/** Every `table.column` of the tenant whose foreign key references companies(id), with how many rows name `id`. */
async function referencesTo(db: Knex, id: number): Promise<Record<string, number>> {
  const { rows } = await db.raw<{ rows: { table: string; column: string }[] }>(
    `select cl.relname as "table", a.attname as "column" from pg_constraint c
       join pg_class cl on cl.oid = c.conrelid join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
      where c.contype = 'f' and c.confrelid = to_regclass('companies')`,
  );
  const counts: Record<string, number> = {};
  for (const { table, column } of [...rows, { table: 'contacts', column: 'account_id' }, { table: 'events', column: 'account_id' }]) {
    counts[`${table}.${column}`] = Number((await db(table).where(column, id).count('* as n').first())!.n);
  }
  return counts;
}

const ok = (res: { status: number; text: string }, what: string) => {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: ${res.status} ${res.text}`);
  return (res as unknown as { json: { id: number } }).json;
};

test.serial.before(async () => {
  f = await graphqlFixture('pmrg');
  const company = async (key: string, body: Record<string, unknown>) => (ids[key] = ok(await f.api('POST', 'crm/companies', body), key).id);
  await company('old', {
    name: 'Old Co',
    email: 'office@old.example',
    website: 'https://old.example',
    address_street: '9 Old Road',
    address_town: 'York',
    address_country_id: 'GB',
  });
  await company('kept', { name: 'Kept Co', website: 'https://kept.example' });
  const contact = async (key: string, body: Record<string, unknown>) => (ids[key] = ok(await f.api('POST', 'crm/contacts', body), key).id);
  await contact('olive', { first_name: 'Olive', last_name: 'Old', company_id: ids.old, account_id: ids.old });
  await contact('oscar', { first_name: 'Oscar', last_name: 'Old', company_id: ids.old });
  await contact('kim', { first_name: 'Kim', last_name: 'Kept', company_id: ids.kept });
  const template = ok(await f.api('POST', 'event/event_templates', { title: 'Merging 101' }), 'template').id;
  ids.event = ok(
    await f.api('POST', 'event/public_events', { event_template_id: template, classroom_start: '2027-05-01T09:00:00' }),
    'event',
  ).id;
  const campaign = ok(await f.api('POST', 'crm/campaigns', { name: 'Spring', company_id: ids.old }), 'campaign').id;
  ok(
    await f.api('POST', 'crm/marketing_activities', { name: 'Mailing', description: 'x', campaign_id: campaign, company_id: ids.old }),
    'activity',
  );
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await db('events').where({ id: ids.event }).update({ company_id: ids.old, account_id: ids.old });
    await db('regions').insert({ code: 'OLD', name: 'Old region', company_id: ids.old });
    await db('users').where({ email: f.email }).update({ company_id: ids.old });
    const [opportunity] = await db('opportunities')
      .insert({ state: 'received', contact_id: ids.olive, company_id: ids.old })
      .returning('id');
    await db('registrations').insert({ opportunity_id: opportunity.id, contact_id: ids.olive, company_id: ids.old });
    await db('invoices').insert({
      opportunity_id: opportunity.id,
      contact_id: ids.olive,
      company_id: ids.old,
      total: 10,
      status: 'unpaid',
    });
    await db('company_addresses').insert([
      { company_id: ids.old, usage: 'billing', lines: ['Old billing'] },
      { company_id: ids.old, usage: 'shipping', lines: ['Old shipping'], town: 'York' },
      { company_id: ids.kept, usage: 'billing', lines: ['Kept billing'] },
    ]);
    // A table no code knows of (a later migration's): the merge finds it in the catalogue.
    await db.raw(`create table merge_probe (id serial primary key, owner_id integer references companies(id))`);
    await db('merge_probe').insert({ owner_id: ids.old });
  });
});
test.after.always(async () => f?.close());

test.serial('when the workflow merges an account, then everything of it names the account kept and the old one is gone', async (t) => {
  const before = await withTenant(f.ctx.rt.knex, f.tenant, (db) => referencesTo(db, ids.old!));
  // Every table that can name an account names the old one before (else the test proves nothing).
  t.deepEqual(
    Object.entries(before)
      .filter(([, n]) => n === 0)
      .map(([c]) => c),
    [],
  );
  t.true(Object.keys(before).length >= 13, Object.keys(before).join(', '));

  const res = await f.data(f.admin, MERGE(aid('old'), aid('kept')));
  t.deepEqual(res.account.merge, { account: { id: aid('kept'), name: 'Kept Co' }, errors: [] });

  const after = await withTenant(f.ctx.rt.knex, f.tenant, (db) => referencesTo(db, ids.old!));
  t.deepEqual(
    Object.entries(after).filter(([, n]) => n > 0),
    [],
  );
  const moved = await withTenant(f.ctx.rt.knex, f.tenant, (db) => referencesTo(db, ids.kept!));
  t.is(moved['merge_probe.owner_id'], 1);
  t.is(moved['events.account_id'], 1);
  t.is(moved['contacts.company_id'], 3);
  t.is(moved['users.company_id'], 1);
  t.is((await f.api('GET', `crm/companies/${ids.old}`)).status, 404);
});

test.serial('when an account was merged, then its contacts answer under the account kept in GraphQL and in REST v2', async (t) => {
  const d = await f.data(
    f.admin,
    `query ($kept: String!, $old: String!) {
      kept: contacts(filters: [{field: accountId, operation: eq, value: $kept}]) { edges { node { legacyId account { id name } } } }
      old: contacts(filters: [{field: accountId, operation: eq, value: $old}]) { edges { node { id } } }
      accounts(filters: [{field: id, operation: eq, value: $old}]) { edges { node { id } } }
    }`,
    { kept: aid('kept'), old: aid('old') },
  );
  const account = { id: aid('kept'), name: 'Kept Co' };
  t.deepEqual(d.kept.edges, [
    { node: { legacyId: ids.olive, account } },
    { node: { legacyId: ids.oscar, account } },
    { node: { legacyId: ids.kim, account } },
  ]);
  t.deepEqual(d.old.edges, []);
  t.deepEqual(d.accounts.edges, []);
  const rest = (await f.api('GET', `crm/contacts?company_id=${ids.kept}&_order=id`)).json;
  t.deepEqual(
    rest.map((c: { id: number; company_id: number }) => [c.id, c.company_id]),
    [
      [ids.olive, ids.kept],
      [ids.oscar, ids.kept],
      [ids.kim, ids.kept],
    ],
  );
  t.deepEqual((await f.api('GET', `crm/contacts?company_id=${ids.old}`)).json, []);
  t.is(rest[0].account_id, ids.kept);
});

test.serial('when an account was merged, then the account kept keeps its own values and takes what it lacked of the old one', async (t) => {
  const d = await f.data(
    f.admin,
    `query ($id: ID!) { node(id: $id) { ... on Account { name emailAddress website postalAddresses { usage lines town country { code } } } } }`,
    { id: aid('kept') },
  );
  t.deepEqual(d.node, {
    name: 'Kept Co',
    emailAddress: 'office@old.example',
    website: 'https://kept.example',
    postalAddresses: [
      { usage: 'default', lines: ['9 Old Road'], town: 'York', country: { code: 'GB' } },
      { usage: 'billing', lines: ['Kept billing'], town: null, country: null },
      { usage: 'shipping', lines: ['Old shipping'], town: 'York', country: null },
    ],
  });
});

test.serial(
  'when a merge names one account twice, an unknown account or one of another tenant, then it is refused and nothing moves',
  async (t) => {
    const self = await f.data(f.admin, MERGE(aid('kept'), aid('kept')));
    t.is(self.account.merge.account, null);
    t.like(self.account.merge.errors[0], { label: 'toAccount', value: aid('kept') });
    t.regex(self.account.merge.errors[0].message, /itself/);

    const gone = await f.data(f.admin, MERGE(aid('old'), aid('kept')));
    t.deepEqual(gone.account.merge.errors, [{ label: 'fromAccount', message: 'Account not found', value: aid('old') }]);
    const notAnAccount = toGlobalId('Contact', ids.kim!);
    const wrongType = await f.data(f.admin, MERGE(aid('kept'), notAnAccount));
    t.deepEqual(wrongType.account.merge.errors, [{ label: 'toAccount', message: 'Account not found', value: notAnAccount }]);

    const other = await f.ctx.freshTenant('pmrgb');
    await withTenant(f.ctx.rt.knex, other, async (db) => {
      await db('companies').insert({ id: 900001, name: 'Theirs' });
      await db('contacts').insert({ first_name: 'Their', last_name: 'Contact', company_id: 900001 });
    });
    const theirs = toGlobalId('Account', 900001);
    for (const [from, to, label] of [
      [theirs, aid('kept'), 'fromAccount'],
      [aid('kept'), theirs, 'toAccount'],
    ] as const) {
      const res = await f.data(f.admin, MERGE(from, to));
      t.deepEqual(res.account.merge.errors, [{ label, message: 'Account not found', value: theirs }]);
    }
    const stillTheirs = await withTenant(f.ctx.rt.knex, other, async (db) => ({
      company: await db('companies').where({ id: 900001 }).first('name'),
      contacts: await db('contacts').where({ company_id: 900001 }).count('* as n').first(),
    }));
    t.deepEqual(stillTheirs, { company: { name: 'Theirs' }, contacts: { n: 1 } });
    t.is((await f.api('GET', `crm/contacts?company_id=${ids.kept}`)).json.length, 3);
  },
);

test.serial(
  'when a record cannot name the account kept twice (a unique key), then the merge is refused and nothing of it is written',
  async (t) => {
    ids.a = ok(await f.api('POST', 'crm/companies', { name: 'A Co', email: 'a@a.example' }), 'a').id;
    ids.b = ok(await f.api('POST', 'crm/companies', { name: 'B Co' }), 'b').id;
    ids.ann = ok(await f.api('POST', 'crm/contacts', { first_name: 'Ann', last_name: 'A', company_id: ids.a }), 'ann').id;
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      await db.raw(`create table merge_unique (owner_id integer unique references companies(id))`);
      await db('merge_unique').insert([{ owner_id: ids.a }, { owner_id: ids.b }]);
    });
    const res = await f.data(f.admin, MERGE(aid('a'), aid('b')));
    t.is(res.account.merge.account, null);
    t.like(res.account.merge.errors[0], { label: 'fromAccount', value: aid('a') });
    t.regex(res.account.merge.errors[0].message, /merge_unique/);
    // All as it was: the contact, the e-mail address not copied, the account not deleted.
    t.is((await f.api('GET', `crm/contacts/${ids.ann}`)).json.company_id, ids.a);
    t.like((await f.api('GET', `crm/companies/${ids.b}`)).json, { email: null });
    t.is((await f.api('GET', `crm/companies/${ids.a}`)).status, 200);
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db.raw('drop table merge_unique'));
  },
);
