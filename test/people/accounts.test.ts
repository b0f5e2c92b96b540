import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * `accounts(filters, first)` and `account { create update }` as integrations send them
 * (real-clients.md section 5.B): the WordPress plugin's partner accounts (filters without commas),
 * the workflows' look-up by id and their inline address update (unquoted usage, null literals,
 * `region: ""`), the sync service's inline create, the MCP server's typed filters. An account is a
 * company of REST v2 `crm/companies`: both APIs read and write the same row, by the same rules.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const aid = (name: string) => toGlobalId('Account', ids[name]!);
const country = (code: string) => Buffer.from(`Country:${code}`).toString('base64');
const GB = country('GB');

/** The plugin's partner accounts: filters without a comma between them. */
const PLUGIN_PARTNERS = `query ($first: Int) {
  accounts(filters: [{field: name, operation: like, value: "%train%"} {field: isPartner, operation: eq, value: "true"}], first: $first) {
    edges { node { id name legacyId isPartner emailAddress website postalAddresses { usage lines town region postcode country { id } address { provinceCode contactPerson } } } }
    pageInfo { hasNextPage hasPreviousPage totalRecords }
  }
}`;
/** The merge workflow's fetch of one account. */
const AUTO_BY_ID = `query ($id: String!) { accounts(filters: [{field: id, operation: eq, value: $id}]) { edges { node { id name legacyId } } } }`;
const MCP = `query ($filters: [AccountFieldGraphFilter], $first: Int) { accounts(filters: $filters, first: $first) { edges { node { id name } } pageInfo { totalRecords } } }`;
const ADDRESSES = `query ($id: String!) { accounts(filters: [{field: id, operation: eq, value: $id}]) { edges { node {
  postalAddresses { usage lines town region postcode country { id code name } provinceCode contactPerson
    address { lines town region postcode country { id } provinceCode contactPerson } } } } } }`;

test.serial.before(async () => {
  f = await graphqlFixture('pacc');
  const company = async (key: string, body: Record<string, unknown>) => {
    const res = await f.api('POST', 'crm/companies', body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`company ${key}: ${res.status} ${res.text}`);
    ids[key] = res.json.id;
  };
  await company('northwind', {
    name: 'Northwind Training',
    email: 'partners@northwind.example',
    website: 'https://northwind.example',
    is_partner: true,
    address_street: '1 Harbour Way\nDock 3',
    address_town: 'Bristol',
    address_region: 'Avon',
    address_postcode: 'BS1 5DB',
    address_country_id: 'GB',
    address_province_code: 'ENG',
    address_contact_person: 'Pat Partner',
  });
  await company('contoso', { name: 'Contoso Training Limited', is_partner: true });
  await company('fabrikam', { name: 'Fabrikam Limited' });
  await company('solo', { name: 'Solo Partner', is_partner: true });
  await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('company_addresses').insert({
      company_id: ids.northwind,
      usage: 'billing',
      lines: ['PO Box 12'],
      town: 'Bristol',
      country_id: 'IE',
    }),
  );
});
test.after.always(async () => f?.close());

test.serial(
  'when the plugin lists partner accounts by name with filters written without commas, then it answers them with their addresses',
  async (t) => {
    const d = await f.data(f.admin, PLUGIN_PARTNERS, { first: 10 });
    t.deepEqual(d.accounts, {
      edges: [
        {
          node: {
            id: aid('contoso'),
            name: 'Contoso Training Limited',
            legacyId: ids.contoso,
            isPartner: true,
            emailAddress: null,
            website: null,
            postalAddresses: [],
          },
        },
        {
          node: {
            id: aid('northwind'),
            name: 'Northwind Training',
            legacyId: ids.northwind,
            isPartner: true,
            emailAddress: 'partners@northwind.example',
            website: 'https://northwind.example',
            postalAddresses: [
              {
                usage: 'default',
                lines: ['1 Harbour Way', 'Dock 3'],
                town: 'Bristol',
                region: 'Avon',
                postcode: 'BS1 5DB',
                country: { id: GB },
                address: { provinceCode: 'ENG', contactPerson: 'Pat Partner' },
              },
              {
                usage: 'billing',
                lines: ['PO Box 12'],
                town: 'Bristol',
                region: null,
                postcode: null,
                country: { id: country('IE') },
                address: { provinceCode: null, contactPerson: null },
              },
            ],
          },
        },
      ],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, totalRecords: 2 },
    });
    // A page of one: more after it.
    t.deepEqual((await f.data(f.admin, PLUGIN_PARTNERS, { first: 1 })).accounts.pageInfo, {
      hasNextPage: true,
      hasPreviousPage: false,
      totalRecords: 2,
    });
  },
);

test.serial('when a workflow fetches one account by its id, or the MCP server by name, then it answers that account', async (t) => {
  t.deepEqual((await f.data(f.admin, AUTO_BY_ID, { id: aid('fabrikam') })).accounts.edges, [
    { node: { id: aid('fabrikam'), name: 'Fabrikam Limited', legacyId: ids.fabrikam } },
  ]);
  const limited = await f.data(f.admin, MCP, { filters: [{ field: 'name', operation: 'like', value: '%limited%' }], first: 5 });
  t.deepEqual(limited.accounts, {
    edges: [
      { node: { id: aid('contoso'), name: 'Contoso Training Limited' } },
      { node: { id: aid('fabrikam'), name: 'Fabrikam Limited' } },
    ],
    pageInfo: { totalRecords: 2 },
  });
  const byEmail = await f.data(f.admin, MCP, {
    filters: [{ field: 'emailAddress', operation: 'eq', value: 'PARTNERS@northwind.example' }],
  });
  t.deepEqual(byEmail.accounts.edges, [{ node: { id: aid('northwind'), name: 'Northwind Training' } }]);
  const notPartners = await f.data(f.admin, MCP, { filters: [{ field: 'isPartner', operation: 'eq', value: 'false' }] });
  t.deepEqual(notPartners.accounts.edges, [{ node: { id: aid('fabrikam'), name: 'Fabrikam Limited' } }]);
  // node(id) answers an account as well.
  const node = await f.data(f.admin, `query ($id: ID!) { node(id: $id) { __typename ... on Account { name isPartner } } }`, {
    id: aid('contoso'),
  });
  t.deepEqual(node.node, { __typename: 'Account', name: 'Contoso Training Limited', isPartner: true });
});

test.serial('when the sync service creates an account with an inline name, then REST v2 reads the same company', async (t) => {
  const res = await f.data(
    f.admin,
    `mutation { account { create(input: { name: "Acted Created Ltd" }) { account { id } errors { label message value } } } }`,
  );
  t.deepEqual(res.account.create.errors, []);
  const id = Buffer.from(res.account.create.account.id, 'base64').toString('utf8');
  t.regex(id, /^Account:\d+$/);
  const legacy = Number(id.split(':')[1]);
  const rest = (await f.api('GET', `crm/companies/${legacy}`)).json;
  t.like(rest, { id: legacy, name: 'Acted Created Ltd', is_partner: false, email: null, address_street: null });
  // With everything an account takes, in one create.
  const full = await f.data(
    f.admin,
    `mutation ($input: AccountCreateInput!) { account { create(input: $input) { account { name isPartner emailAddress website postalAddresses { usage lines country { code } } } errors { label message value } } } }`,
    {
      input: {
        name: '  Full Ltd ',
        emailAddress: 'hello@full.example',
        website: 'https://full.example',
        isPartner: true,
        postalAddresses: [{ usage: 'shipping', address: { lines: ['Gate 2', ''], countryId: country('FR') } }],
      },
    },
  );
  t.deepEqual(full.account.create, {
    account: {
      name: 'Full Ltd',
      isPartner: true,
      emailAddress: 'hello@full.example',
      website: 'https://full.example',
      postalAddresses: [{ usage: 'shipping', lines: ['Gate 2'], country: { code: 'FR' } }],
    },
    errors: [],
  });
  // An empty name is refused, and nothing is written.
  const empty = await f.data(
    f.admin,
    `mutation { account { create(input: { name: "  " }) { account { id } errors { label message value } } } }`,
  );
  t.deepEqual(empty.account.create.account, null);
  t.deepEqual(
    empty.account.create.errors.map((e: { label: string }) => e.label),
    ['name'],
  );
});

test.serial(
  'when a workflow updates addresses inline (unquoted usage, null literals, region ""), then both read shapes and REST answer what it wrote',
  async (t) => {
    const res = await f.data(
      f.admin,
      `mutation { account { update(input: { accountId: "${aid('fabrikam')}" postalAddresses: [{ usage: billing address: { lines: ["Unit 4", "Riverside Park"] town: "Leeds" region: "" postcode: "LS1 4AP" countryId: "${GB}" provinceCode: null contactPerson: null } } { usage: default address: { lines: ["1 High Street"] town: "London" region: "Greater London" postcode: "EC1A 1BB" countryId: "${GB}" provinceCode: "ENG" contactPerson: "Jo Bloggs" } }] }) { account { id } errors { label message value } } } }`,
    );
    t.deepEqual(res.account.update, { account: { id: aid('fabrikam') }, errors: [] });
    const read = await f.data(f.admin, ADDRESSES, { id: aid('fabrikam') });
    const gb = { id: GB, code: 'GB', name: 'United Kingdom' };
    t.deepEqual(read.accounts.edges[0].node.postalAddresses, [
      {
        usage: 'default',
        lines: ['1 High Street'],
        town: 'London',
        region: 'Greater London',
        postcode: 'EC1A 1BB',
        country: gb,
        provinceCode: 'ENG',
        contactPerson: 'Jo Bloggs',
        address: {
          lines: ['1 High Street'],
          town: 'London',
          region: 'Greater London',
          postcode: 'EC1A 1BB',
          country: { id: GB },
          provinceCode: 'ENG',
          contactPerson: 'Jo Bloggs',
        },
      },
      {
        usage: 'billing',
        lines: ['Unit 4', 'Riverside Park'],
        town: 'Leeds',
        region: null,
        postcode: 'LS1 4AP',
        country: gb,
        provinceCode: null,
        contactPerson: null,
        address: {
          lines: ['Unit 4', 'Riverside Park'],
          town: 'Leeds',
          region: null,
          postcode: 'LS1 4AP',
          country: { id: GB },
          provinceCode: null,
          contactPerson: null,
        },
      },
    ]);
    // The default address is the company's own address in REST v2.
    t.like((await f.api('GET', `crm/companies/${ids.fabrikam}`)).json, {
      address_street: '1 High Street',
      address_town: 'London',
      address_region: 'Greater London',
      address_postcode: 'EC1A 1BB',
      address_country_id: 'GB',
      address_province_code: 'ENG',
      address_contact_person: 'Jo Bloggs',
    });
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('company_addresses').where({ company_id: ids.fabrikam }));
    t.deepEqual(
      stored.map(({ usage, lines, region }) => ({ usage, lines, region })),
      [{ usage: 'billing', lines: ['Unit 4', 'Riverside Park'], region: null }],
    );
    // A REST change of the address is what GraphQL reads.
    await f.api('PUT', `crm/companies/${ids.fabrikam}`, { address_street: '2 High Street\nBack door', address_region: null });
    const after = await f.data(f.admin, ADDRESSES, { id: aid('fabrikam') });
    t.like(after.accounts.edges[0].node.postalAddresses[0], { usage: 'default', lines: ['2 High Street', 'Back door'], region: null });
    // Other fields, and an address removed with null; the usages not given are kept.
    const more = await f.data(
      f.admin,
      `mutation ($input: AccountUpdateInput!) { account { update(input: $input) { account { name isPartner emailAddress website postalAddresses { usage } } errors { label message value } } } }`,
      {
        input: {
          accountId: aid('fabrikam'),
          name: 'Fabrikam Ltd',
          isPartner: true,
          emailAddress: 'office@fabrikam.example',
          website: 'fabrikam.example',
          postalAddresses: [{ usage: 'billing', address: null }],
        },
      },
    );
    t.deepEqual(more.account.update, {
      account: {
        name: 'Fabrikam Ltd',
        isPartner: true,
        emailAddress: 'office@fabrikam.example',
        website: 'fabrikam.example',
        postalAddresses: [{ usage: 'default' }],
      },
      errors: [],
    });
  },
);

test.serial("when a country id names no country (the production service's Country:193), then the update is refused whole", async (t) => {
  const before = (await f.api('GET', `crm/companies/${ids.northwind}`)).json;
  const res = await f.data(
    f.admin,
    `mutation { account { update(input: { accountId: "${aid('northwind')}" name: "Renamed" postalAddresses: [{ usage: default address: { lines: ["x"] countryId: "Q291bnRyeToxOTM=" } }] }) { account { id } errors { label message value } } } }`,
  );
  t.is(res.account.update.account, null);
  t.is(res.account.update.errors.length, 1);
  t.like(res.account.update.errors[0], { label: 'postalAddresses[0].address.countryId', value: 'Q291bnRyeToxOTM=' });
  t.regex(res.account.update.errors[0].message, /names no country.*countries/);
  t.deepEqual((await f.api('GET', `crm/companies/${ids.northwind}`)).json, before);
  // A usage twice, a line too long and a bad e-mail address: each named.
  const many = await f.data(
    f.admin,
    `mutation ($input: AccountUpdateInput!) { account { update(input: $input) { account { id } errors { label message value } } } }`,
    {
      input: {
        accountId: aid('northwind'),
        emailAddress: 'not an address',
        postalAddresses: [
          { usage: 'shipping', address: { lines: ['x'.repeat(201)] } },
          { usage: 'shipping', address: { town: 'Twice' } },
        ],
      },
    },
  );
  t.deepEqual(
    many.account.update.errors.map((e: { label: string }) => e.label),
    ['emailAddress', 'postalAddresses[0].address.lines', 'postalAddresses[1].usage'],
  );
  // An id that is no account.
  const unknown = await f.data(
    f.admin,
    `mutation { account { update(input: { accountId: "${toGlobalId('Account', 999999)}" name: "x" }) { account { id } errors { label message value } } } }`,
  );
  t.deepEqual(unknown.account.update.errors, [{ label: 'accountId', message: 'Account not found', value: toGlobalId('Account', 999999) }]);
});

test.serial('when REST v2 writes a company, then the accounts’ rules apply to it as to GraphQL', async (t) => {
  const badEmail = await f.api('PUT', `crm/companies/${ids.contoso}`, { email: 'not an address' });
  t.is(badEmail.status, 400);
  t.regex(badEmail.text, /email/);
  const gql = await f.data(
    f.admin,
    `mutation { account { update(input: { accountId: "${aid('contoso')}" emailAddress: "not an address" }) { errors { label message } } } }`,
  );
  t.deepEqual(
    gql.account.update.errors.map((e: { label: string }) => e.label),
    ['emailAddress'],
  );
  const badCountry = await f.api('PUT', `crm/companies/${ids.contoso}`, { address_country_id: 'XX' });
  t.is(badCountry.status, 400);
  t.regex(badCountry.text, /address_country_id/);
  const twoLines = await f.api('POST', 'crm/companies', { name: 'Two\nLines' });
  t.is(twoLines.status, 404);
  t.regex(twoLines.text, /name/);
  // Nothing was written.
  t.like((await f.api('GET', `crm/companies/${ids.contoso}`)).json, { email: null, address_country_id: null });
  t.is((await f.api('GET', 'crm/companies?name=Two%0ALines')).json.length, 0);
});

test.serial('when a client lists countries, then each answers with the id an address takes', async (t) => {
  const token = await f.tokenFor(f.tenant, 'pacc-ref', ['LOCALE_VIEW']);
  const d = await f.data(token, `{ countries { edges { node { id code name } } pageInfo { totalRecords } } }`);
  t.is(d.countries.pageInfo.totalRecords, 249);
  const byCode = new Map(d.countries.edges.map((e: { node: { code: string } }) => [e.node.code, e.node]));
  t.deepEqual(byCode.get('GB'), { id: 'Q291bnRyeTpHQg==', code: 'GB', name: 'United Kingdom' });
  t.deepEqual(byCode.get('DE'), { id: country('DE'), code: 'DE', name: 'Germany' });
  t.is(d.countries.edges[0].node.name, 'Afghanistan');
});

test.serial('when a role lacks COMPANY_VIEW or COMPANY_EDIT, then accounts are refused and nothing is written', async (t) => {
  const none = await f.tokenFor(f.tenant, 'pacc-none', ['CONTACT_VIEW']);
  const list = await f.gql(none, `{ accounts { edges { node { id } } } }`);
  t.is(list.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(list.json.errors[0].message, /COMPANY_VIEW/);
  const node = await f.gql(none, `query ($id: ID!) { node(id: $id) { id } }`, { id: aid('contoso') });
  t.regex(node.json.errors[0].message, /COMPANY_VIEW/);
  const viewer = await f.tokenFor(f.tenant, 'pacc-view', ['COMPANY_VIEW']);
  for (const op of [
    `create(input: { name: "Sneaky" }) { account { id } errors { message } }`,
    `update(input: { accountId: "${aid('contoso')}" name: "Sneaky" }) { account { id } errors { message } }`,
    `merge(input: { fromAccount: "${aid('contoso')}", toAccount: "${aid('fabrikam')}" }) { account { id } errors { message } }`,
  ]) {
    const res = await f.gql(viewer, `mutation { account { ${op} } }`);
    t.regex(res.json.errors[0].message, /COMPANY_EDIT/, op);
  }
  t.is((await f.api('GET', 'crm/companies?name=Sneaky')).json.length, 0);
  t.is((await f.api('GET', `crm/companies/${ids.contoso}`)).json.name, 'Contoso Training Limited');
});

test.serial("when another tenant's account ids are used, then nothing of theirs is read or written", async (t) => {
  const other = await f.ctx.freshTenant('paccb');
  await withTenant(f.ctx.rt.knex, other, (db) => db('companies').insert({ id: 900001, name: 'Other Training', is_partner: true }));
  const theirs = toGlobalId('Account', 900001);
  t.deepEqual((await f.data(f.admin, AUTO_BY_ID, { id: theirs })).accounts.edges, []);
  t.is((await f.data(f.admin, `query ($id: ID!) { node(id: $id) { id } }`, { id: theirs })).node, null);
  t.false(
    (await f.data(f.admin, PLUGIN_PARTNERS, { first: 50 })).accounts.edges.some(
      (e: { node: { name: string } }) => e.node.name === 'Other Training',
    ),
  );
  const update = await f.data(
    f.admin,
    `mutation { account { update(input: { accountId: "${theirs}" name: "Taken" }) { account { id } errors { label message value } } } }`,
  );
  t.deepEqual(update.account.update.errors, [{ label: 'accountId', message: 'Account not found', value: theirs }]);
  const stored = await withTenant(f.ctx.rt.knex, other, (db) => db('companies').where({ id: 900001 }).first());
  t.is(stored.name, 'Other Training');
});
