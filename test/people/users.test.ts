import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * `users { edges { node { id fullName contact { id } } } }` as the task workflow sends it
 * (real-clients.md section 5.B, no arguments): the instance's active users, each named by its
 * contact's first and last name, else by its e-mail address before the @ (USER_VIEW).
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const uid = (id: number) => toGlobalId('User', id);

const AUTO = `query { users { edges { node { id fullName contact { id } } } } }`;

test.serial.before(async () => {
  f = await graphqlFixture('pusr');
  const contact = async (key: string, body: Record<string, unknown>) => {
    const res = await f.api('POST', 'crm/contacts', body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`contact ${key}: ${res.text}`);
    ids[key] = res.json.id;
  };
  await contact('ada', { first_name: 'Ada', last_name: 'Lovelace' });
  await contact('nameless', { email: 'nameless@example.com' });
  ids.api = (await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('users').where({ email: f.email }).first('id'))).id;
  ids.trainer = await f.addUser(f.tenant, 'trainer.one@pusr.test', 'admin');
  ids.gone = await f.addUser(f.tenant, 'gone@pusr.test', 'admin');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await db('users').where({ id: ids.api }).update({ contact_id: ids.ada });
    await db('users').where({ id: ids.trainer }).update({ contact_id: ids.nameless });
    await db('users').where({ id: ids.gone }).update({ is_active: false });
  });
});
test.after.always(async () => f?.close());

test.serial('when the workflow lists users, then each active user answers with its id, full name and contact', async (t) => {
  const d = await f.data(f.admin, AUTO);
  const active = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('users').where({ is_active: true }).orderBy('id').select('id', 'email'),
  );
  t.is(d.users.edges.length, active.length);
  const byId = new Map(d.users.edges.map((e: { node: { id: string } }) => [e.node.id, e.node]));
  // Named by its contact.
  t.deepEqual(byId.get(uid(ids.api!)), { id: uid(ids.api!), fullName: 'Ada Lovelace', contact: { id: toGlobalId('Contact', ids.ada!) } });
  // A contact without a name, and no contact at all: the e-mail address before the @.
  t.deepEqual(byId.get(uid(ids.trainer!)), {
    id: uid(ids.trainer!),
    fullName: 'trainer.one',
    contact: { id: toGlobalId('Contact', ids.nameless!) },
  });
  const admin = active.find((u: { email: string }) => u.email.startsWith('admin-'))!;
  t.deepEqual(byId.get(uid(admin.id)), { id: uid(admin.id), fullName: admin.email.split('@')[0], contact: null });
  // The inactive user is not listed.
  t.false(byId.has(uid(ids.gone!)));
  t.deepEqual(
    d.users.edges.map((e: { node: { id: string } }) => e.node.id),
    active.map((u: { id: number }) => uid(u.id)),
  );
});

test.serial('when users are paged with first and offset, then the pages follow one another', async (t) => {
  const all = (await f.data(f.admin, `{ users(first: 100) { edges { node { id } } pageInfo { totalRecords } } }`)).users;
  const second = (
    await f.data(
      f.admin,
      `{ users(first: 1, offset: 1) { edges { node { id emailAddress isActive } } pageInfo { hasNextPage hasPreviousPage } } }`,
    )
  ).users;
  t.is(second.edges[0].node.id, all.edges[1].node.id);
  t.true(second.edges[0].node.isActive);
  t.deepEqual(second.pageInfo, { hasNextPage: all.pageInfo.totalRecords > 2, hasPreviousPage: true });
  const node = await f.data(f.admin, `query ($id: ID!) { node(id: $id) { __typename ... on User { fullName } } }`, { id: uid(ids.api!) });
  t.deepEqual(node.node, { __typename: 'User', fullName: 'Ada Lovelace' });
});

test.serial('when a role lacks USER_VIEW, then users are refused; without CONTACT_VIEW only the contact is', async (t) => {
  const none = await f.tokenFor(f.tenant, 'pusr-none', ['CONTACT_VIEW']);
  const refused = await f.gql(none, AUTO);
  t.is(refused.json.data, null);
  t.regex(refused.json.errors[0].message, /USER_VIEW/);
  const usersOnly = await f.tokenFor(f.tenant, 'pusr-users', ['USER_VIEW']);
  const res = await f.gql(
    usersOnly,
    `query ($id: String!) { users(filters: [{field: id, operation: eq, value: $id}]) { edges { node { fullName contact { id } } } } }`,
    {
      id: uid(ids.api!),
    },
  );
  t.deepEqual(res.json.data.users.edges, [{ node: { fullName: 'Ada Lovelace', contact: null } }]);
  t.regex(res.json.errors[0].message, /CONTACT_VIEW/);
});

test.serial("when another tenant's user ids are asked for, then none of theirs answers", async (t) => {
  const other = await f.ctx.freshTenant('pusrb');
  await withTenant(f.ctx.rt.knex, other, async (db) => {
    const role = await db('roles').where({ name: 'admin' }).first('id');
    await db('users').insert({ id: 900001, email: 'theirs@other.test', role_id: role.id });
  });
  const theirs = uid(900001);
  const d = await f.data(
    f.admin,
    `query ($id: ID!, $s: String!) { node(id: $id) { id } users(filters: [{field: id, operation: eq, value: $s}]) { edges { node { id } } } all: users(first: 100) { edges { node { fullName } } } }`,
    { id: theirs, s: theirs },
  );
  t.is(d.node, null);
  t.deepEqual(d.users.edges, []);
  t.false(d.all.edges.some((e: { node: { fullName: string } }) => e.node.fullName === 'theirs'));
});
