import test, { type ExecutionContext } from 'ava';
import { parse } from 'graphql';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { intStringsAsInts } from '../../src/kit/graphql/int-variables.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import { insertPriceLevel, insertRegion } from '../../src/modules/pricing/pricing.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request, type HttpResult } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The wire habits of the people, schedule and reference-data clients (real-clients.md section 5,
 * "Conventions seen in every group"): an n8n workflow's `Int` variables sent as JSON strings
 * (`Learners($offset: Int!)` with `{"offset": "0"}`), the sync service's `null` custom field
 * values and nullable ids, `__typename` selected on mutation groups and payloads, and one object
 * where a list of filters is expected, on the new roots. Clients that fail on any top-level
 * `errors` key read these answers, so each success is checked to have none.
 */
let f: GraphQLFixture;
const ids: Record<string, string> = {};

test.serial.before(async () => {
  f = await graphqlFixture('gwhp');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await insertPriceLevel(db, 'Member', 'Members of the institute');
    await insertPriceLevel(db, 'Charity', 'Registered charities');
    await insertRegion(db, { code: 'UK', name: 'United Kingdom' });
  });
  await addPortal(f.ctx.rt.knex, f.tenant, { domain: `${f.tenant.slug}.administrateweblink.com` });
  const made = await f.data(
    f.admin,
    `mutation {
      l: location { create(input: {name: "Holborn Centre", addressTown: "London", addressCountryId: "GB", timeZoneName: "Europe/London"}) { location { id } errors { message } } }
      t: taxType { create(input: {name: "Standard VAT", rate: 20}) { taxType { id } errors { message } } }
      c: customFieldDefinition { create(input: {key: "sitting", label: "Sitting", type: TEXT, appliesTo: EVENT}) { customFieldDefinition { id } errors { message } } }
      p: courseTemplate { create(input: {title: "Excel Basics", code: "XL1", lifecycleState: published}) { courseTemplate { id } errors { message } } }
    }`,
  );
  ids.location = made.l.create.location.id;
  ids.taxType = made.t.create.taxType.id;
  ids.sitting = made.c.create.customFieldDefinition.id;
  ids.template = made.p.create.courseTemplate.id;
  const second = await f.data(
    f.admin,
    `mutation { courseTemplate { create(input: {title: "Excel Macros", code: "XL2", lifecycleState: published}) { courseTemplate { id } errors { message } } } }`,
  );
  if (second.courseTemplate.create.errors.length) throw new Error(JSON.stringify(second));
});
test.after.always(async () => f?.close());

/** The data of an answer that must be a success: 200 and no `errors` key at all. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
function ok(t: ExecutionContext, res: HttpResult): any {
  t.is(res.status, 200, res.text.slice(0, 500));
  t.false(res.json === undefined || 'errors' in res.json, res.text.slice(0, 500));
  return res.json?.data;
}

/** The workflow's learners query, its offset as the workflow declares it, asked of a root of this issue. */
const LEARNERS_STYLE = `query Learners($offset: Int!) {
  priceLevels(first: 2, offset: $offset) { edges { node { id name } } pageInfo { hasNextPage } }
}`;
const names = (connection: { edges: { node: { name: string } }[] }) => connection.edges.map((e) => e.node.name);

test.serial('when an Int variable comes as a numeric JSON string, then it is the number it writes', async (t) => {
  const first = ok(t, await f.gql(f.admin, LEARNERS_STYLE, { offset: '0' }));
  t.deepEqual(names(first.priceLevels), ['Normal', 'Member']);
  t.true(first.priceLevels.pageInfo.hasNextPage);
  const next = ok(t, await f.gql(f.admin, LEARNERS_STYLE, { offset: '2' }));
  t.deepEqual(names(next.priceLevels), ['Charity']);
  t.false(next.priceLevels.pageInfo.hasNextPage);
  // As a number it answers the same.
  t.deepEqual(ok(t, await f.gql(f.admin, LEARNERS_STYLE, { offset: 2 })), next);
  // n8n's ?query= habit: the document and a string of JSON variables in the URL; negative and nullable Int too.
  const viaUrl = await request(f.port, {
    method: 'POST',
    path: `/graphql?${new URLSearchParams({ query: LEARNERS_STYLE, variables: '{"offset": "1"}' })}`,
    headers: { authorization: `Bearer ${f.admin}` },
  });
  t.deepEqual(names(ok(t, viaUrl).priceLevels), ['Member', 'Charity']);
  // A page size as a string is a page size, for the cost limit as for the page.
  const sized = ok(
    t,
    await f.gql(f.admin, 'query ($first: Int, $offset: Int) { currencies(first: $first, offset: $offset) { edges { node { code } } } }', {
      first: '100',
      offset: '-0',
    }),
  );
  t.is(sized.currencies.edges.length, 100);
  const negative = await f.gql(f.admin, LEARNERS_STYLE, { offset: '-1' });
  t.is(negative.json.errors[0].message, 'offset must not be negative');
});

test.serial(
  'when an Int variable is a string that is no plain 32-bit whole number, or the variable is not an Int, then graphql-js answers as it always did',
  async (t) => {
    for (const offset of ['zero', '1.5', ' 1', '1 ', '1e3', '+1', '', '0x10', '2147483648', '-2147483649', '99999999999']) {
      const res = await f.gql(f.admin, LEARNERS_STYLE, { offset });
      t.is(res.status, 200, offset);
      t.is(res.json.data, undefined, offset);
      t.regex(res.json.errors[0].message, /^Variable "\$offset" got invalid value .*; Int cannot represent non/, offset);
    }
    // The 32-bit bounds themselves are numbers (and then the list's own rules answer).
    t.deepEqual(names(ok(t, await f.gql(f.admin, LEARNERS_STYLE, { offset: '2147483647' })).priceLevels), []);
    // A String variable that looks like a number stays a string, an ID one too.
    const code = ok(
      t,
      await f.gql(
        f.admin,
        'query ($code: String!, $id: ID!) { currencies(filters: [{field: code, operation: eq, value: $code}]) { edges { node { code } } } node(id: $id) { id } }',
        { code: '826', id: '12' },
      ),
    );
    t.deepEqual(code, { currencies: { edges: [] }, node: null });
    // Float and Decimal variables are not touched by this habit: graphql-js and the scalar decide.
    const float = await f.gql(
      f.admin,
      'mutation ($rate: Float!) { taxType { create(input: {name: "Reduced", rate: $rate}) { errors { message } } } }',
      { rate: '20' },
    );
    t.regex(float.json.errors[0].message, /Float cannot represent non numeric value: "20"/);
  },
);

test('when the reading of Int variables meets lists, single values, other operations and other types, then only Int values change', (t) => {
  const document = parse(`query a($ids: [Int!]!, $one: [Int], $deep: [[Int]], $n: Int, $s: String, $i: ID, $input: SomeInput) { hello }
    query b($n: String) { hello }`);
  const variables = { ids: ['1', 2, '-3', 'x'], one: '7', deep: [['8'], '9'], n: '10', s: '11', i: '12', input: { n: '13' }, extra: '14' };
  t.deepEqual(intStringsAsInts(document, 'a', variables), {
    ids: [1, 2, -3, 'x'],
    one: 7,
    deep: [[8], 9],
    n: 10,
    s: '11',
    i: '12',
    input: { n: '13' },
    extra: '14',
  });
  t.deepEqual(variables.ids, ['1', 2, '-3', 'x'], 'the request is not changed in place');
  // Another operation of the document declares `n` a String; an ambiguous document (no name given) reads nothing.
  const b = { n: '10' };
  t.is(intStringsAsInts(document, 'b', b), b);
  t.is(intStringsAsInts(document, undefined, variables), variables);
  const nothing = { n: 5 };
  t.is(intStringsAsInts(parse('query ($n: Int) { hello }'), undefined, nothing), nothing);
});

test.serial('when WebLink gets Int variables as numeric strings, then it reads them as Core does (one reading of requests)', async (t) => {
  const res = await request(f.port, {
    method: 'POST',
    path: '/weblink/graphql',
    host: `${f.tenant.slug}.localhost:${f.port}`,
    body: {
      query:
        'query ($first: Int, $offset: Int) { courses(first: $first, offset: $offset) { edges { node { code } } pageInfo { totalRecords } } }',
      variables: { first: '1', offset: '1' },
    },
  });
  t.deepEqual(ok(t, res).courses, { edges: [{ node: { code: 'XL2' } }], pageInfo: { totalRecords: 2 } });
});

/** The sync service's blended event, its venue and custom field value as nullable variables it sends as null. */
const CREATE_BLENDED = `mutation makeBlended($title: String!, $locationId: ID!, $venueId: ID, $eventType: EventType!, $taxType: ID!, $courseTemplateId: ID!,
  $timeZoneName: String!, $classroomStartDateTime: LocalDateTime!, $classroomEndDateTime: LocalDateTime!, $lmsStartDateTime: LocalDateTime!, $lmsEndDateTime: LocalDateTime!,
  $maxPlaces: Int, $sittingKey: ID!, $sittingCFValue: String) {
  event { createBlended(input: { courseTemplateId: $courseTemplateId, title: $title, eventType: $eventType, locationId: $locationId, venueId: $venueId, taxType: $taxType,
      timeZoneName: $timeZoneName, classroomStartDateTime: $classroomStartDateTime, classroomEndDateTime: $classroomEndDateTime,
      lmsStartDateTime: $lmsStartDateTime, lmsEndDateTime: $lmsEndDateTime, maxPlaces: $maxPlaces,
      customFieldValues: [{ definitionKey: $sittingKey, value: $sittingCFValue }] }) {
    event { id venue { id } customFieldValues { definitionKey value } }
    errors { label message value } } } }`;
const UPDATE_SITTING = `mutation ($eventId: ID!, $sittingKey: ID!, $sittingCFValue: String) {
  event { update(eventId: $eventId, input: { customFieldValues: [{ definitionKey: $sittingKey, value: $sittingCFValue }] }) {
    event { id customFieldValues { definitionKey value } } errors { label message value } } } }`;

test.serial(
  'when custom field values and ids come as null, then an event is created without them, and a null value on update removes one',
  async (t) => {
    const created = ok(
      t,
      await f.gql(f.admin, CREATE_BLENDED, {
        title: 'XL1-01-25S',
        locationId: ids.location,
        venueId: null,
        eventType: 'public',
        taxType: ids.taxType,
        courseTemplateId: ids.template,
        timeZoneName: 'Europe/London',
        classroomStartDateTime: '2026-09-01T09:00:00',
        classroomEndDateTime: '2026-09-01T17:00:00',
        lmsStartDateTime: '2026-08-01T00:00:00',
        lmsEndDateTime: '2026-09-30T23:59:00',
        maxPlaces: null,
        sittingKey: ids.sitting,
        sittingCFValue: null,
      }),
    ).event.createBlended;
    t.deepEqual(created.errors, []);
    t.deepEqual(created.event.venue, null);
    t.deepEqual(created.event.customFieldValues, []);
    const eventId = created.event.id;
    const set = ok(t, await f.gql(f.admin, UPDATE_SITTING, { eventId, sittingKey: ids.sitting, sittingCFValue: '25S' })).event.update;
    t.deepEqual(set, { event: { id: eventId, customFieldValues: [{ definitionKey: 'sitting', value: '25S' }] }, errors: [] });
    const cleared = ok(t, await f.gql(f.admin, UPDATE_SITTING, { eventId, sittingKey: 'sitting', sittingCFValue: null })).event.update;
    t.deepEqual(cleared, { event: { id: eventId, customFieldValues: [] }, errors: [] });
    const read = ok(t, await f.gql(f.admin, `{ node(id: "${eventId}") { ... on Event { customFieldValues { definitionKey value } } } }`));
    t.deepEqual(read.node.customFieldValues, []);
    ids.event = eventId;
  },
);

test.serial(
  'when __typename is selected on the mutation root, its groups, payloads and their errors, then each answers its type',
  async (t) => {
    const gbp = Buffer.from('Currency:GBP').toString('base64');
    const d = ok(
      t,
      await f.gql(
        f.admin,
        `mutation {
        __typename
        event {
          __typename
          added: addPrices(input: { amount: "495.00" eventId: "${ids.event}" financialUnitId: "${gbp}" priceLevelId: "${toGlobalId('PriceLevel', 1)}" }) {
            __typename prices { __typename id currency { __typename code isActive } } errors { __typename label message value }
          }
        }
        courseTemplate { __typename }
      }`,
      ),
    );
    t.is(d.__typename, 'Mutation');
    t.is(d.event.__typename, 'EventMutations');
    t.is(d.event.added.__typename, 'EventPricesPayload');
    t.deepEqual(d.event.added.errors, []);
    t.like(d.event.added.prices[0], { __typename: 'Price', currency: { __typename: 'Currency', code: 'GBP', isActive: true } });
    t.is(d.courseTemplate.__typename, 'CourseTemplateMutations');
    // A refused write answers its FieldErrors with their type too (and writes nothing).
    const refused = ok(
      t,
      await f.gql(
        f.admin,
        `mutation { event { __typename addPrices(input: { amount: "-1" eventId: "${ids.event}" financialUnitId: "NOPE" priceLevelId: "${toGlobalId('PriceLevel', 1)}" }) { __typename prices { id } errors { __typename label } } } }`,
      ),
    );
    t.deepEqual(refused.event, {
      __typename: 'EventMutations',
      addPrices: {
        __typename: 'EventPricesPayload',
        prices: null,
        errors: [
          { __typename: 'FieldError', label: 'amount' },
          { __typename: 'FieldError', label: 'financialUnitId' },
        ],
      },
    });
  },
);

test.serial('when one filter object is sent where the new roots expect a list, then it is a list of one', async (t) => {
  const d = ok(
    t,
    await f.gql(
      f.admin,
      `{
        priceLevels(filters: {field: name, operation: eq, value: "Member"}) { edges { node { name description } } }
        currencies(filters: {field: isActive, operation: eq, value: "true"}) { edges { node { code isActive } } }
        regions(filters: {field: code, operation: eq, value: "UK"}) { edges { node { name } } }
        portals(first: 5, filters: {field: domain, operation: like, value: "%.administrateweblink.com"}) { edges { node { vanityUrl } } }
      }`,
    ),
  );
  t.deepEqual(d, {
    priceLevels: { edges: [{ node: { name: 'Member', description: 'Members of the institute' } }] },
    currencies: { edges: [{ node: { code: 'GBP', isActive: true } }] },
    regions: { edges: [{ node: { name: 'United Kingdom' } }] },
    portals: { edges: [{ node: { vanityUrl: null } }] },
  });
  const byVariable = ok(
    t,
    await f.gql(f.admin, 'query ($filters: [CurrencyFieldGraphFilter]) { currencies(filters: $filters) { edges { node { code } } } }', {
      filters: { field: 'code', operation: 'in', values: 'EUR' },
    }),
  );
  t.deepEqual(byVariable.currencies.edges, [{ node: { code: 'EUR' } }]);
});
