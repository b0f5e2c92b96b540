import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * `contacts(filters, first, offset, after)` as integrations send it (real-clients.md section 5.B):
 * the sync service's name look-ups with isAdmin / isInstructor and its instructor paging, the
 * workflows' staffRoleName and id look-ups, the WordPress plugin's e-mail look-up and the MCP
 * server's typed filters. The contacts are made through REST v2 `crm/contacts`, as integrations
 * make them: GraphQL answers the same rows.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const cid = (name: string) => toGlobalId('Contact', ids[name]!);
const aid = (name: string) => toGlobalId('Account', ids[name]!);

/** The sync service's admin look-up by a name from its spreadsheet (raw, no `%`). */
const ACTED_ADMIN = `query ($name: String!) {
  contacts(filters: [{field: name, operation: like, value: $name}, {field: isAdmin, operation: eq, value: "true"}]) {
    edges { node { id firstName lastName } }
  }
}`;
/** Its instructor look-up by name. */
const ACTED_TUTOR = `query ($tutorname: String!) {
  contacts(filters: [{field: name, operation: like, value: $tutorname}, {field: isInstructor, operation: eq, value: "true"}]) {
    edges { node { id firstName lastName } }
  }
}`;
/** Its instructor sync: every instructor, a page at a time, following endCursor. */
const ACTED_INSTRUCTORS = `query ($first: Int!, $after: String) {
  contacts(filters: [{field: isInstructor, operation: eq, value: "true"}], first: $first, after: $after) {
    edges { node { id legacyId firstName lastName emailAddress isInstructor isStaff account { id name } personalName { firstName middleName lastName } } }
    pageInfo { hasNextPage endCursor totalRecords }
  }
}`;

test.serial.before(async () => {
  f = await graphqlFixture('pcon');
  const company = async (name: string) => (await f.api('POST', 'crm/companies', { name })).json.id as number;
  ids.acme = await company('Acme Training Ltd');
  ids.globex = await company('Globex');
  const contact = async (key: string, body: Record<string, unknown>) => {
    const res = await f.api('POST', 'crm/contacts', body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`contact ${key}: ${res.status} ${res.text}`);
    ids[key] = res.json.id;
  };
  await contact('ada', {
    first_name: 'Ada',
    middle_name: 'STU-0042',
    last_name: 'Lovelace',
    email: 'Ada.Lovelace@Example.com',
    is_tutor: true,
    is_staff: true,
    company_id: ids.acme,
  });
  await contact('alan', { first_name: 'Alan', last_name: 'Turing', email: 'alan@example.com', is_admin: 1, is_staff: true });
  await contact('grace', { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', is_admin: 2, is_tutor: true });
  await contact('jane', { first_name: 'Jane', last_name: 'Smith', email: 'jane@example.com', company_id: ids.globex });
  await contact('john', { first_name: 'John', last_name: 'Goldsmith', email: 'john@example.com', is_tutor: true });
  await contact('ann', { first_name: 'Ann', last_name: 'Lovelace', email: 'ann@example.com' });
  for (let i = 1; i <= 4; i++) await contact(`tutor${i}`, { first_name: `Tutor${i}`, last_name: 'Pool', is_tutor: true });
});
test.after.always(async () => f?.close());

test.serial('when the sync service looks up an admin by a name as written, then it finds that admin only', async (t) => {
  const d = await f.data(f.admin, ACTED_ADMIN, { name: 'Alan Turing' });
  t.deepEqual(d.contacts.edges, [{ node: { id: cid('alan'), firstName: 'Alan', lastName: 'Turing' } }]);
  // Case does not matter (`like` is case-insensitive); no `%` is added: a part of a name finds nobody.
  t.is((await f.data(f.admin, ACTED_ADMIN, { name: 'grace hopper' })).contacts.edges[0].node.id, cid('grace'));
  t.deepEqual((await f.data(f.admin, ACTED_ADMIN, { name: 'Alan' })).contacts.edges, []);
  // Ada is no admin: her name with isAdmin finds nobody.
  t.deepEqual((await f.data(f.admin, ACTED_ADMIN, { name: 'Ada Lovelace' })).contacts.edges, []);
});

test.serial('when the sync service looks up an instructor by name, then it finds instructors only', async (t) => {
  t.deepEqual((await f.data(f.admin, ACTED_TUTOR, { tutorname: 'Ada Lovelace' })).contacts.edges, [
    { node: { id: cid('ada'), firstName: 'Ada', lastName: 'Lovelace' } },
  ]);
  // Ann Lovelace teaches nothing; Alan Turing neither.
  t.deepEqual((await f.data(f.admin, ACTED_TUTOR, { tutorname: 'Ann Lovelace' })).contacts.edges, []);
  t.deepEqual((await f.data(f.admin, ACTED_TUTOR, { tutorname: 'Alan Turing' })).contacts.edges, []);
  // A `%` the client adds itself is a wildcard.
  const some = await f.data(f.admin, ACTED_TUTOR, { tutorname: '%Lovelace' });
  t.deepEqual(
    some.contacts.edges.map((e: { node: { id: string } }) => e.node.id),
    [cid('ada')],
  );
});

test.serial(
  'when the sync service pages through instructors on endCursor, then it reads each instructor once with the contact tree',
  async (t) => {
    const seen: { id: string; account?: unknown }[] = [];
    let after: string | null = null;
    let pages = 0;
    let total = -1;
    for (;;) {
      const d: {
        contacts: {
          edges: { node: { id: string; account?: unknown } }[];
          pageInfo: { totalRecords: number; hasNextPage: boolean; endCursor: string };
        };
      } = await f.data(f.admin, ACTED_INSTRUCTORS, { first: 3, after });
      pages++;
      total = d.contacts.pageInfo.totalRecords;
      seen.push(...d.contacts.edges.map((e) => e.node));
      if (!d.contacts.pageInfo.hasNextPage) break;
      after = d.contacts.pageInfo.endCursor;
      if (pages > 10) {
        t.fail('the cursor loop does not end');
        break;
      }
    }
    const instructors = ['ada', 'grace', 'john', 'tutor1', 'tutor2', 'tutor3', 'tutor4'];
    t.is(total, instructors.length);
    t.is(pages, 3);
    t.deepEqual(
      seen.map((c) => c.id),
      instructors.map(cid),
    );
    t.deepEqual<unknown, unknown>(seen[0], {
      id: cid('ada'),
      legacyId: ids.ada,
      firstName: 'Ada',
      lastName: 'Lovelace',
      emailAddress: 'Ada.Lovelace@Example.com',
      isInstructor: true,
      isStaff: true,
      account: { id: aid('acme'), name: 'Acme Training Ltd' },
      personalName: { firstName: 'Ada', middleName: 'STU-0042', lastName: 'Lovelace' },
    });
    // John teaches for no account.
    t.is(seen[2]!.account, null);
  },
);

test.serial(
  'when a workflow asks for staffRoleName eq "Instructor", then it answers the instructors; "Administrator" the admins',
  async (t) => {
    const byRole = async (role: string) =>
      (
        await f.data(
          f.admin,
          `{ contacts(filters: [{field: staffRoleName, operation: eq, value: "${role}"}], first: 100) { edges { node { id isInstructor isAdmin } } pageInfo { totalRecords } } }`,
        )
      ).contacts;
    const instructors = await byRole('Instructor');
    t.is(instructors.pageInfo.totalRecords, 7);
    t.true(instructors.edges.every((e: { node: { isInstructor: boolean } }) => e.node.isInstructor));
    const admins = await byRole('Administrator');
    t.deepEqual(
      admins.edges.map((e: { node: { id: string; isAdmin: boolean } }) => [e.node.id, e.node.isAdmin]),
      [
        [cid('alan'), true],
        [cid('grace'), true],
      ],
    );
    // A role no contact holds matches nobody; `ne` keeps the others.
    t.is((await byRole('Trainer')).pageInfo.totalRecords, 0);
    const notInstructors = await f.data(
      f.admin,
      `{ contacts(filters: [{field: staffRoleName, operation: ne, value: "instructor"}]) { edges { node { id } } } }`,
    );
    t.deepEqual(
      notInstructors.contacts.edges.map((e: { node: { id: string } }) => e.node.id),
      ['alan', 'jane', 'ann'].map(cid),
    );
  },
);

test.serial(
  'when a workflow asks for one contact by id written without spaces, then it answers that contact with its account',
  async (t) => {
    const d = await f.data(
      f.admin,
      `{contacts(filters:[{field:id,operation:eq,value:"${cid('jane')}"}]){edges{node{id legacyId firstName lastName emailAddress isInstructor isStaff account{id name}}}}}`,
    );
    t.deepEqual(d.contacts.edges, [
      {
        node: {
          id: cid('jane'),
          legacyId: ids.jane,
          firstName: 'Jane',
          lastName: 'Smith',
          emailAddress: 'jane@example.com',
          isInstructor: false,
          isStaff: false,
          account: { id: aid('globex'), name: 'Globex' },
        },
      },
    ]);
    // An account id is no contact id: nobody.
    t.deepEqual(
      (await f.data(f.admin, `{contacts(filters:[{field:id,operation:eq,value:"${aid('globex')}"}]){edges{node{id}}}}`)).contacts.edges,
      [],
    );
  },
);

test.serial('when the plugin looks up a contact by e-mail address, then it finds it whatever the case', async (t) => {
  const PLUGIN = `query ($email: String!) { contacts(filters: [{field: emailAddress, operation: eq, value: $email}]) { edges { node { id firstName lastName emailAddress } } } }`;
  const d = await f.data(f.admin, PLUGIN, { email: 'ada.lovelace@example.com' });
  t.deepEqual(d.contacts.edges, [
    { node: { id: cid('ada'), firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'Ada.Lovelace@Example.com' } },
  ]);
  t.deepEqual((await f.data(f.admin, PLUGIN, { email: 'nobody@example.com' })).contacts.edges, []);
});

test.serial('when the MCP server sends typed filters (lastName like "%smith%"), then it answers both Smiths', async (t) => {
  const MCP = `query ($filters: [ContactFieldGraphFilter], $first: Int, $offset: Int) {
    contacts(filters: $filters, first: $first, offset: $offset) { edges { node { id firstName lastName } } pageInfo { hasNextPage totalRecords } }
  }`;
  const d = await f.data(f.admin, MCP, { filters: [{ field: 'lastName', operation: 'like', value: '%smith%' }], first: 10, offset: 0 });
  t.deepEqual(d.contacts, {
    edges: [
      { node: { id: cid('jane'), firstName: 'Jane', lastName: 'Smith' } },
      { node: { id: cid('john'), firstName: 'John', lastName: 'Goldsmith' } },
    ],
    pageInfo: { hasNextPage: false, totalRecords: 2 },
  });
  // By account (an Account id), and by the account's name.
  const acme = await f.data(f.admin, MCP, { filters: [{ field: 'accountId', operation: 'eq', value: aid('acme') }] });
  t.deepEqual(acme.contacts.edges, [{ node: { id: cid('ada'), firstName: 'Ada', lastName: 'Lovelace' } }]);
  const globex = await f.data(f.admin, MCP, { filters: [{ field: 'accountName', operation: 'like', value: 'glob%' }] });
  t.deepEqual(globex.contacts.edges, [{ node: { id: cid('jane'), firstName: 'Jane', lastName: 'Smith' } }]);
  // An unknown field is refused by name.
  const bad = await f.gql(f.admin, MCP, { filters: [{ field: 'hasLeftCompany', operation: 'eq', value: 'true' }] });
  t.regex(bad.json.errors[0].message, /hasLeftCompany/);
});

test.serial('when a role lacks CONTACT_VIEW, then contacts are refused; without COMPANY_VIEW only the account is', async (t) => {
  const none = await f.tokenFor(f.tenant, 'pcon-none', ['COMPANY_VIEW']);
  const refused = await f.gql(none, `{ contacts { edges { node { id } } } }`);
  t.is(refused.json.data, null);
  t.is(refused.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(refused.json.errors[0].message, /CONTACT_VIEW/);
  const contactsOnly = await f.tokenFor(f.tenant, 'pcon-contacts', ['CONTACT_VIEW']);
  const res = await f.gql(
    contactsOnly,
    `{ contacts(filters: [{field: id, operation: eq, value: "${cid('ada')}"}]) { edges { node { firstName account { name } } } } }`,
  );
  t.deepEqual(res.json.data.contacts.edges, [{ node: { firstName: 'Ada', account: null } }]);
  t.regex(res.json.errors[0].message, /COMPANY_VIEW/);
  // Filtering on the account's name reads the account: refused too.
  const byName = await f.gql(
    contactsOnly,
    `{ contacts(filters: [{field: accountName, operation: like, value: "%"}]) { edges { node { id } } } }`,
  );
  t.regex(byName.json.errors[0].message, /COMPANY_VIEW/);
});

test.serial("when another tenant's contact or account ids are asked for, then nothing of theirs answers", async (t) => {
  const other = await f.ctx.freshTenant('pconb');
  await withTenant(f.ctx.rt.knex, other, async (db) => {
    await db('companies').insert({ id: 900001, name: 'Other Co' });
    await db('contacts').insert({ id: 900001, first_name: 'Other', last_name: 'Person', is_tutor: true, company_id: 900001 });
  });
  const theirs = toGlobalId('Contact', 900001);
  const d = await f.data(
    f.admin,
    `{ byId: contacts(filters: [{field: id, operation: eq, value: "${theirs}"}]) { edges { node { id } } }
       byAccount: contacts(filters: [{field: accountId, operation: eq, value: "${toGlobalId('Account', 900001)}"}]) { edges { node { id } } }
       byName: contacts(filters: [{field: name, operation: like, value: "Other Person"}]) { edges { node { id } } }
       node(id: "${theirs}") { id } }`,
  );
  t.deepEqual(d, { byId: { edges: [] }, byAccount: { edges: [] }, byName: { edges: [] }, node: null });
  // Their own token sees theirs, not ours.
  const theirToken = await f.tokenFor(other, 'admin');
  const their = await f.data(theirToken, `{ contacts { edges { node { id firstName } } pageInfo { totalRecords } } }`);
  t.deepEqual(their.contacts, { edges: [{ node: { id: theirs, firstName: 'Other' } }], pageInfo: { totalRecords: 1 } });
});
