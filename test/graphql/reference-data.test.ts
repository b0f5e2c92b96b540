import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import { insertPriceLevel, insertRegion, setCurrencyActive } from '../../src/modules/pricing/pricing.data.js';
import { knownCurrencies } from '../../src/modules/pricing/financial-units.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The reference data behind prices and the instance's portals, as integrations read them
 * (real-clients.md section 5.D): `priceLevels` with `description` (the event sync service, in its
 * two forms: one sent with leading newlines and no `variables` key), `currencies(filters)` with
 * `isActive` (its `getAllFinancialUnit`, whose ids are the `financialUnitId` prices take),
 * `regions` (where the `regionId` of `addPublicPrices` comes from) and `portals(first)` (the MCP
 * server's `list_portals`). Then what a price in a new currency does to `currencies`, isolation
 * and permissions.
 */
let f: GraphQLFixture;
let other: Tenant;
let theirs: string;
let template: string;
let event: string;
let instanceName: string;
let theirName: string;
const ids: Record<string, number> = {};
const portals: Record<string, number> = {};

const currencyId = (code: string) => Buffer.from(`Currency:${code}`).toString('base64');

/** The sync service's price levels (getCourseTemplatePriceLevels), a bare query. */
const ACTED_LEVELS = `query { priceLevels { edges { node { id name } } } }`;
/** The same with descriptions, as it is sent: leading newlines and indentation, and no `variables` key at all. */
const ACTED_LEVELS_DESCRIBED = `

        query {
            priceLevels {
                edges {
                    node {
                        id
                        name
                        description
                    }
                }
            }
        }
        `;
/** The sync service's getAllFinancialUnit, verbatim. */
const GET_ALL_FINANCIAL_UNIT = `query getAllFinancialUnit {
  currencies(filters: [{field: isActive, operation: eq, value: "true"}]) {
    edges { node { id name code isActive } }
  }
}`;
/** The MCP server's list_portals. */
const LIST_PORTALS = `query ListPortals($first: Int) {
  portals(first: $first) {
    edges { node { id url vanityUrl availabilityState isBookingPortal isSelfRegistrationPortal singleSignOnOnly autoProvisionLearnersViaSingleSignOn brand { id name } } }
  }
}`;
const ADD_PUBLIC_PRICE = `mutation ($courseTemplateId: ID!, $priceLevelId: ID!, $amount: Decimal!, $financialUnitId: ID!, $regionId: ID!) {
  courseTemplate { addPublicPrices(input: {courseTemplateId: $courseTemplateId, priceLevelId: $priceLevelId, amount: $amount, financialUnitId: $financialUnitId, regionId: $regionId}) { prices { id amount } errors { label message value } } } }`;
const ADD_EVENT_PRICE = `mutation addEventPriceLevel($amount: Decimal!, $eventId: ID!, $financialUnitId: ID!, $priceLevelId: ID!) {
  event { addPrices(input: { amount: $amount, eventId: $eventId, financialUnitId: $financialUnitId, priceLevelId: $priceLevelId }) { prices { id } errors { label message value } } } }`;

/** The data of an answer that must succeed with no `errors` key (the sync service fails on one). */
async function clean(token: string, query: string, variables?: Record<string, unknown>) {
  const res = await f.gql(token, query, variables);
  if (res.status !== 200 || res.json === undefined || 'errors' in res.json) throw new Error(`${res.status}: ${res.text}`);
  return res.json.data;
}

test.serial.before(async () => {
  f = await graphqlFixture('gref');
  other = await f.ctx.freshTenant('grefb');
  theirs = await f.tokenFor(other, 'admin');
  const company = (await f.api('POST', 'crm/companies', { name: 'Acme Training UK Ltd' })).json;
  ids.company = company.id;
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    ids.normal = (await db('price_levels').where({ name: 'Normal' }).first('id')).id;
    ids.member = (await insertPriceLevel(db, 'Member', 'Members of the institute, with their membership number')).id;
    ids.charity = (await insertPriceLevel(db, 'Charity', null)).id;
    ids.uk = (await insertRegion(db, { code: 'UK', name: 'United Kingdom', company_id: company.id })).id;
    ids.eu = (await insertRegion(db, { code: 'EU', name: 'Europe' })).id;
    // A currency the instance once used and stopped using.
    await setCurrencyActive(db, 'USD', false);
    instanceName = (await db('settings').first('name')).name;
  });
  theirName = await withTenant(f.ctx.rt.knex, other, async (db) => (await db('settings').first('name')).name);
  await addPortal(f.ctx.rt.knex, f.tenant, { domain: `${f.tenant.slug}.administrateweblink.com` });
  await addPortal(f.ctx.rt.knex, f.tenant, { domain: 'https://Courses.Acme-Training.example/' });
  await addPortal(f.ctx.rt.knex, other, { domain: `${other.slug}.administrateweblink.com` });
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    for (const row of (await db('platform.portals').where({ tenant_id: f.tenant.id }).select('id', 'domain')) as {
      id: number;
      domain: string;
    }[])
      portals[row.domain.startsWith('courses.') ? 'vanity' : 'home'] = row.id;
  });
  const made = await f.data(
    f.admin,
    `mutation { courseTemplate { create(input: {title: "Actuarial Statistics", code: "CB1"}) { courseTemplate { id } errors { message } } } }`,
  );
  template = made.courseTemplate.create.courseTemplate.id;
  const e = await f.data(
    f.admin,
    `mutation { event { createClassroom(input: {courseTemplateId: "${template}", eventType: public, timeZoneName: "Europe/London", code: "CB1-01", title: "CB1 March"}) { event { id } errors { message } } } }`,
  );
  event = e.event.createClassroom.event.id;
});
test.after.always(async () => f?.close());

test.serial(
  'when the sync service lists price levels in both its forms, then every level answers with its description (null when it has none)',
  async (t) => {
    t.deepEqual(await clean(f.admin, ACTED_LEVELS), {
      priceLevels: {
        edges: [
          { node: { id: toGlobalId('PriceLevel', ids.normal!), name: 'Normal' } },
          { node: { id: toGlobalId('PriceLevel', ids.member!), name: 'Member' } },
          { node: { id: toGlobalId('PriceLevel', ids.charity!), name: 'Charity' } },
        ],
      },
    });
    // The described form, sent as it is: the body has no `variables` key.
    const res = await f.gql(f.admin, ACTED_LEVELS_DESCRIBED);
    t.is(res.status, 200);
    t.deepEqual(res.json, {
      data: {
        priceLevels: {
          edges: [
            { node: { id: toGlobalId('PriceLevel', ids.normal!), name: 'Normal', description: null } },
            {
              node: {
                id: toGlobalId('PriceLevel', ids.member!),
                name: 'Member',
                description: 'Members of the institute, with their membership number',
              },
            },
            { node: { id: toGlobalId('PriceLevel', ids.charity!), name: 'Charity', description: null } },
          ],
        },
      },
    });
    // A level is a node too, and lists page and filter as every list does.
    const d = await clean(
      f.admin,
      `query ($id: ID!) { node(id: $id) { __typename ... on PriceLevel { legacyId name description } }
        priceLevels(filters: [{field: description, operation: like, value: "%institute%"}]) { edges { node { name } } pageInfo { totalRecords } }
        page: priceLevels(first: 1, offset: 1, order: {field: name, direction: asc}) { edges { node { name } } pageInfo { totalRecords hasNextPage } } }`,
      { id: toGlobalId('PriceLevel', ids.member!) },
    );
    t.deepEqual(d.node, {
      __typename: 'PriceLevel',
      legacyId: ids.member,
      name: 'Member',
      description: 'Members of the institute, with their membership number',
    });
    t.deepEqual(d.priceLevels, { edges: [{ node: { name: 'Member' } }], pageInfo: { totalRecords: 1 } });
    t.deepEqual(d.page, { edges: [{ node: { name: 'Member' } }], pageInfo: { totalRecords: 3, hasNextPage: true } });
  },
);

test.serial(
  'when a client looks up a region by code, then its id is the regionId addPublicPrices takes, and the price reads back in that region',
  async (t) => {
    const d = await clean(
      f.admin,
      `{ all: regions { edges { node { id code name } } }
         uk: regions(filters: [{field: code, operation: eq, value: "UK"}]) { edges { node { id legacyId name } } } }`,
    );
    // By name: Europe before United Kingdom.
    t.deepEqual(d.all.edges, [
      { node: { id: toGlobalId('Region', ids.eu!), code: 'EU', name: 'Europe' } },
      { node: { id: toGlobalId('Region', ids.uk!), code: 'UK', name: 'United Kingdom' } },
    ]);
    const regionId = d.uk.edges[0].node.id;
    t.is(regionId, toGlobalId('Region', ids.uk!));
    const added = await clean(f.admin, ADD_PUBLIC_PRICE, {
      courseTemplateId: template,
      priceLevelId: toGlobalId('PriceLevel', ids.normal!),
      amount: '495.00',
      financialUnitId: currencyId('GBP'),
      regionId,
    });
    t.deepEqual(added.courseTemplate.addPublicPrices.errors, []);
    const read = await clean(
      f.admin,
      `query ($id: ID!) { courseTemplate(id: $id) { publicPrices { edges { node { amount priceLevel { id name } region { id code } currency { code isActive } } } } }
         node(id: "${regionId}") { ... on Region { code name } } }`,
      { id: template },
    );
    t.deepEqual(read.courseTemplate.publicPrices.edges, [
      {
        node: {
          amount: '495.00',
          priceLevel: { id: toGlobalId('PriceLevel', ids.normal!), name: 'Normal' },
          region: { id: regionId, code: 'UK' },
          currency: { code: 'GBP', isActive: true },
        },
      },
    ]);
    t.deepEqual(read.node, { code: 'UK', name: 'United Kingdom' });
  },
);

test.serial(
  "when getAllFinancialUnit runs, then it answers the instance's active currencies with the ids prices take; a price in a new currency adds it, active",
  async (t) => {
    // GBP is the instance's since the template's price (the test before); USD was made inactive.
    const before = await clean(f.admin, GET_ALL_FINANCIAL_UNIT);
    t.deepEqual(before, {
      currencies: { edges: [{ node: { id: currencyId('GBP'), name: 'British Pound', code: 'GBP', isActive: true } }] },
    });
    // The id answered is the financialUnitId event.addPrices takes; a first price in euros makes EUR the instance's.
    const eur = await clean(f.admin, ADD_EVENT_PRICE, {
      amount: '395.50',
      eventId: event,
      financialUnitId: currencyId('EUR'),
      priceLevelId: toGlobalId('PriceLevel', ids.member!),
    });
    t.deepEqual(eur.event.addPrices.errors, []);
    // A price in a currency the instance made inactive leaves it inactive.
    const usd = await clean(f.admin, ADD_EVENT_PRICE, {
      amount: '500',
      eventId: event,
      financialUnitId: 'USD',
      priceLevelId: toGlobalId('PriceLevel', ids.normal!),
    });
    t.deepEqual(usd.event.addPrices.errors, []);
    const after = await clean(f.admin, GET_ALL_FINANCIAL_UNIT);
    t.deepEqual(after.currencies.edges, [
      { node: { id: currencyId('EUR'), name: 'Euro', code: 'EUR', isActive: true } },
      { node: { id: currencyId('GBP'), name: 'British Pound', code: 'GBP', isActive: true } },
    ]);
    const prices = await clean(
      f.admin,
      `query ($id: ID!) { node(id: $id) { ... on Event { prices { edges { node { currency { code isActive } financialUnit { id } } } } } } }`,
      { id: event },
    );
    t.deepEqual(
      prices.node.prices.edges.map((e: { node: { currency: { code: string; isActive: boolean }; financialUnit: { id: string } } }) => [
        e.node.currency.code,
        e.node.currency.isActive,
        e.node.financialUnit.id,
      ]),
      [
        ['USD', false, currencyId('USD')],
        ['EUR', true, currencyId('EUR')],
      ],
    );

    // Every currency there is answers, active or not; by code, by id, several at once.
    const d = await clean(
      f.admin,
      `{ inactive: currencies(filters: [{field: isActive, operation: eq, value: "false"}]) { pageInfo { totalRecords } }
         all: currencies { pageInfo { totalRecords } }
         usd: currencies(filters: [{field: isActive, operation: eq, value: "false"}, {field: code, operation: eq, value: "usd"}]) { edges { node { id code name isActive } } }
         some: currencies(filters: [{field: code, operation: in, values: ["JPY", "gbp", "ZZZ"]}]) { edges { node { code isActive symbol } } }
         byId: currencies(filters: [{field: id, operation: eq, value: "${currencyId('CHF')}"}]) { edges { node { code name isActive } } }
         notThere: currencies(filters: [{field: id, operation: eq, value: "${toGlobalId('Region', 1)}"}]) { edges { node { code } } } }`,
    );
    const known = knownCurrencies().length;
    t.is(d.all.pageInfo.totalRecords, known);
    t.is(d.inactive.pageInfo.totalRecords, known - 2);
    t.deepEqual(d.usd.edges, [{ node: { id: currencyId('USD'), code: 'USD', name: 'US Dollar', isActive: false } }]);
    t.deepEqual(d.some.edges, [
      { node: { code: 'GBP', isActive: true, symbol: '£' } },
      { node: { code: 'JPY', isActive: false, symbol: '¥' } },
    ]);
    t.deepEqual(d.byId.edges, [{ node: { code: 'CHF', name: 'Swiss Franc', isActive: false } }]);
    t.deepEqual(d.notThere.edges, []);
    // A value that is not 'true' or 'false' is refused by name.
    const bad = await f.gql(
      f.admin,
      `{ currencies(filters: [{field: isActive, operation: eq, value: "yes"}]) { edges { node { code } } } }`,
    );
    t.is(bad.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    t.regex(bad.json.errors[0].message, /'yes' is not 'true' or 'false'/);
  },
);

test.serial(
  "when the MCP server lists portals, then it answers the instance's WebLink portals as Lectern has them, with the instance as their brand",
  async (t) => {
    const d = await clean(f.admin, LIST_PORTALS, { first: 10 });
    const brand = { id: toGlobalId('Brand', 1), name: instanceName };
    const truths = {
      availabilityState: 'available',
      isBookingPortal: true,
      isSelfRegistrationPortal: false,
      singleSignOnOnly: false,
      autoProvisionLearnersViaSingleSignOn: false,
      brand,
    };
    // By domain; the domain of the instance's own is its vanity address.
    t.deepEqual(d.portals.edges, [
      {
        node: {
          id: toGlobalId('Portal', portals.vanity!),
          url: 'https://courses.acme-training.example',
          vanityUrl: 'https://courses.acme-training.example',
          ...truths,
        },
      },
      {
        node: {
          id: toGlobalId('Portal', portals.home!),
          url: `https://${f.tenant.slug}.administrateweblink.com`,
          vanityUrl: null,
          ...truths,
        },
      },
    ]);
    // first pages; a portal is a node; filters as every list's.
    const more = await clean(
      f.admin,
      `query ($first: Int, $id: ID!) { portals(first: $first) { edges { node { domain } } pageInfo { totalRecords hasNextPage } }
         node(id: $id) { __typename ... on Portal { legacyId domain url } }
         byUrl: portals(filters: [{field: url, operation: eq, value: "https://courses.acme-training.example"}]) { edges { node { legacyId } } } }`,
      { first: 1, id: toGlobalId('Portal', portals.home!) },
    );
    t.deepEqual(more.portals, {
      edges: [{ node: { domain: 'courses.acme-training.example' } }],
      pageInfo: { totalRecords: 2, hasNextPage: true },
    });
    t.deepEqual(more.node, {
      __typename: 'Portal',
      legacyId: portals.home,
      domain: `${f.tenant.slug}.administrateweblink.com`,
      url: `https://${f.tenant.slug}.administrateweblink.com`,
    });
    t.deepEqual(more.byUrl.edges, [{ node: { legacyId: portals.vanity } }]);
  },
);

test.serial("when another instance's token asks, then it reads its own reference data and portals, none of this one's", async (t) => {
  const d = await clean(
    theirs,
    `query ($member: ID!, $region: ID!, $portal: ID!) {
      priceLevels { edges { node { name } } }
      regions { edges { node { code } } }
      currencies(filters: [{field: isActive, operation: eq, value: "true"}]) { edges { node { code } } }
      portals(first: 10) { edges { node { url brand { name } } } }
      member: node(id: $member) { id } region: node(id: $region) { id } portal: node(id: $portal) { id }
      byId: portals(filters: [{field: id, operation: eq, value: "${toGlobalId('Portal', portals.vanity!)}"}]) { edges { node { id } } } }`,
    {
      member: toGlobalId('PriceLevel', ids.member!),
      region: toGlobalId('Region', ids.uk!),
      portal: toGlobalId('Portal', portals.vanity!),
    },
  );
  t.deepEqual(d, {
    priceLevels: { edges: [{ node: { name: 'Normal' } }] },
    regions: { edges: [] },
    // No price there: none of its currencies is active, whatever this instance's are.
    currencies: { edges: [] },
    portals: { edges: [{ node: { url: `https://${other.slug}.administrateweblink.com`, brand: { name: theirName } } }] },
    member: null,
    region: null,
    portal: null,
    byId: { edges: [] },
  });
  // The tokens of this instance do not read theirs either.
  const theirPortal = await withTenant(f.ctx.rt.knex, other, (db) => db('platform.portals').where({ tenant_id: other.id }).first('id'));
  t.deepEqual(await clean(f.admin, `{ node(id: "${toGlobalId('Portal', theirPortal.id)}") { id } }`), { node: null });
});

test.serial(
  'permissions: reference data needs a view of some prices (course templates, events or learning paths); portals need PORTAL_VIEW',
  async (t) => {
    const none = await f.tokenFor(f.tenant, 'locales', ['LOCALE_VIEW']);
    for (const root of ['priceLevels', 'currencies', 'regions']) {
      const res = await f.gql(none, `{ ${root} { edges { node { id } } } }`);
      t.is(res.json.data, null, root);
      t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
      t.regex(res.json.errors[0].message, /COURSE_TEMPLATE_VIEW, EVENT_VIEW or LEARNING_PATH_VIEW/);
    }
    const node = await f.gql(none, `{ node(id: "${toGlobalId('PriceLevel', ids.member!)}") { id } }`);
    t.is(node.json.errors[0].extensions.code, 'FORBIDDEN');
    const portal = await f.gql(none, LIST_PORTALS, { first: 5 });
    t.is(portal.json.data, null);
    t.is(portal.json.errors[0].extensions.code, 'FORBIDDEN');
    t.regex(portal.json.errors[0].message, /PORTAL_VIEW/);

    // Any one of the prices' readers reads them all; PORTAL_VIEW alone reads portals.
    for (const permission of ['COURSE_TEMPLATE_VIEW', 'EVENT_VIEW', 'LEARNING_PATH_VIEW']) {
      const token = await f.tokenFor(f.tenant, permission.toLowerCase().replace(/_/g, '-'), [permission]);
      const d = await clean(
        token,
        `{ priceLevels { pageInfo { totalRecords } } currencies(filters: [{field: isActive, operation: eq, value: "true"}]) { edges { node { code } } } regions { pageInfo { totalRecords } } }`,
      );
      t.deepEqual(d, {
        priceLevels: { pageInfo: { totalRecords: 3 } },
        currencies: { edges: [{ node: { code: 'EUR' } }, { node: { code: 'GBP' } }] },
        regions: { pageInfo: { totalRecords: 2 } },
      });
    }
    const portalsOnly = await f.tokenFor(f.tenant, 'portals', ['PORTAL_VIEW']);
    t.is((await clean(portalsOnly, LIST_PORTALS, { first: 5 })).portals.edges.length, 2);
    t.is((await f.gql(portalsOnly, ACTED_LEVELS)).json.errors[0].extensions.code, 'FORBIDDEN');
    // A region's company is the CRM's: read with COMPANY_VIEW, as prices' regions always were.
    const regions = `{ regions(filters: [{field: code, operation: eq, value: "UK"}]) { edges { node { code company { id name } } } } }`;
    const events = await f.tokenFor(f.tenant, 'events-only', ['EVENT_VIEW']);
    const withoutCompanies = await f.gql(events, regions);
    t.deepEqual(withoutCompanies.json.data.regions.edges, [{ node: { code: 'UK', company: null } }]);
    t.regex(withoutCompanies.json.errors[0].message, /COMPANY_VIEW/);
    const companies = await f.tokenFor(f.tenant, 'events-companies', ['EVENT_VIEW', 'COMPANY_VIEW']);
    t.deepEqual((await clean(companies, regions)).regions.edges, [
      { node: { code: 'UK', company: { id: toGlobalId('Company', ids.company!), name: 'Acme Training UK Ltd' } } },
    ]);
  },
);
