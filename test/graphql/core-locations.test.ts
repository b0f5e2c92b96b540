import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Locations in Core GraphQL as integrations use them (real-clients.md section 3): the `locations`
 * list paged with `first`/`offset` and looked up by name (`eq`, `wordlike`), by code and by id;
 * each location's `code` and `region { id code name }` (an event's `location { region { code } }`);
 * `location { create update }` with `code` and `regionId`.
 */
let f: GraphQLFixture;
let europe: string;
let uk: string;
let taxType: string;

const SELECT = 'location { id name code addressTown region { id code name } } errors { label value message }';
const create = (input: Record<string, unknown>) =>
  f.data(f.admin, `mutation ($input: LocationCreateInput!) { location { create(input: $input) { ${SELECT} } } }`, { input });
const update = (locationId: string, input: Record<string, unknown>) =>
  f.data(
    f.admin,
    `mutation ($id: ID!, $input: LocationUpdateInput!) { location { update(locationId: $id, input: $input) { ${SELECT} } } }`,
    { id: locationId, input },
  );
const locationCount = () => withTenant(f.ctx.rt.knex, f.tenant, async (db) => Number((await db('locations').count('* as n').first())!.n));

async function created(input: Record<string, unknown>): Promise<string> {
  const d = await create(input);
  if (d.location.create.errors.length) throw new Error(JSON.stringify(d));
  return d.location.create.location.id;
}

test.serial.before(async () => {
  f = await graphqlFixture('clo');
  // Regions are the pricing module's (migration 009); no client writes them through Core GraphQL.
  const [eu, gb] = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('regions')
      .insert([
        { code: 'EU', name: 'Europe' },
        { code: 'UK', name: 'United Kingdom' },
      ])
      .returning('id'),
  );
  europe = toGlobalId('Region', eu.id);
  uk = toGlobalId('Region', gb.id);
  taxType = (await f.data(f.admin, 'mutation { taxType { create(input: {name: "VAT", rate: 20}) { taxType { id } } } }')).taxType.create
    .taxType.id;
});
test.after.always(async () => f?.close());

test.serial('when a location is created with a code and a region, then both are answered and stored', async (t) => {
  const d = await create({ name: 'London Bridge Centre', code: 'LON', regionId: uk, addressTown: 'London', timeZoneName: 'Europe/London' });
  t.deepEqual(d.location.create.errors, []);
  t.like(d.location.create.location, {
    name: 'London Bridge Centre',
    code: 'LON',
    addressTown: 'London',
    region: { id: uk, code: 'UK', name: 'United Kingdom' },
  });
  const row = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('locations').where({ name: 'London Bridge Centre' }).first('code', 'region_id', 'time_zone_name'),
  );
  t.deepEqual(row, { code: 'LON', region_id: Number(Buffer.from(uk, 'base64').toString().split(':')[1]), time_zone_name: 'Europe/London' });
  // Neither is required.
  t.like((await create({ name: 'Online' })).location.create.location, { name: 'Online', code: null, region: null });
});

test.serial(
  'when a write names a region that does not exist (or an id of another type), or a bad code, then it is refused with a FieldError and nothing is written',
  async (t) => {
    const before = await locationCount();
    const missing = toGlobalId('Region', 99999);
    const wrongType = toGlobalId('Location', 1);
    for (const regionId of [missing, wrongType, 'not an id']) {
      const d = await create({ name: 'Nowhere', regionId });
      t.deepEqual(d.location.create, { location: null, errors: [{ label: 'regionId', value: regionId, message: 'Region not found' }] });
    }
    const badCode = await create({ name: 'Nowhere', code: 'two\nlines' });
    t.deepEqual(badCode.location.create.errors, [
      { label: 'code', value: 'two\nlines', message: 'code must be one line of at most 64 characters' },
    ]);
    t.is(await locationCount(), before);
  },
);

test.serial(
  'when a location is updated, then only the fields given change, null clears the code and the region, and its name cannot be cleared',
  async (t) => {
    const id = await created({ name: 'Manchester Hub', code: 'MAN', regionId: uk, addressTown: 'Manchester' });
    const moved = await update(id, { regionId: europe, code: 'MAN-1' });
    t.deepEqual(moved.location.update.errors, []);
    t.like(moved.location.update.location, {
      id,
      name: 'Manchester Hub',
      code: 'MAN-1',
      addressTown: 'Manchester',
      region: { id: europe, code: 'EU', name: 'Europe' },
    });
    const cleared = await update(id, { regionId: null, code: null });
    t.like(cleared.location.update.location, { name: 'Manchester Hub', code: null, region: null, addressTown: 'Manchester' });
    const noName = await update(id, { name: null, code: 'X' });
    t.deepEqual(noName.location.update, { location: null, errors: [{ label: 'name', value: null, message: 'name must not be empty' }] });
    const badRegion = await update(id, { regionId: toGlobalId('Region', 424242) });
    t.deepEqual(badRegion.location.update.errors, [
      { label: 'regionId', value: toGlobalId('Region', 424242), message: 'Region not found' },
    ]);
    const unknown = await update(toGlobalId('Location', 424242), { code: 'Y' });
    t.deepEqual(unknown.location.update, {
      location: null,
      errors: [{ label: 'locationId', value: toGlobalId('Location', 424242), message: 'Location not found' }],
    });
    // None of the refused writes changed anything.
    const row = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('locations').where({ name: 'Manchester Hub' }).first('code', 'region_id'),
    );
    t.deepEqual(row, { code: null, region_id: null });
  },
);

test.serial(
  'when a client looks a location up by name (eq, wordlike), by code or by id, then it finds it with its code; paging with first and offset walks them all',
  async (t) => {
    await created({ name: 'Leeds Centre', code: 'LDS', regionId: uk });
    await created({ name: 'Leeds Annexe', code: 'LDS-2' });
    const NODE = 'id legacyId name code';
    const byName = await f.data(
      f.admin,
      `query getLocationByName($location_name: String!) {
    locations(filters: [{ field: name, operation: wordlike, value: $location_name }]) { edges { node { ${NODE} } } } }`,
      { location_name: 'Leeds' },
    );
    t.deepEqual(
      byName.locations.edges.map((e: { node: { name: string; code: string } }) => [e.node.name, e.node.code]),
      [
        ['Leeds Annexe', 'LDS-2'],
        ['Leeds Centre', 'LDS'],
      ],
    );
    const exact = await f.data(
      f.admin,
      `query { locations(filters:[{field:name,operation: eq, value:"Leeds Centre"}]) { edges { node { ${NODE} } } } }`,
    );
    t.is(exact.locations.edges.length, 1);
    const leeds = exact.locations.edges[0].node;
    t.is(leeds.code, 'LDS');
    t.is(leeds.id, toGlobalId('Location', leeds.legacyId));
    const byCode = await f.data(
      f.admin,
      `query ($filters: [LocationFieldGraphFilter]) { locations(filters: $filters) { edges { node { ${NODE} } } } }`,
      { filters: [{ field: 'code', operation: 'eq', value: 'LDS' }] },
    );
    t.deepEqual(byCode.locations.edges, [{ node: leeds }]);
    const byId = await f.data(
      f.admin,
      `query ($filters: [LocationFieldGraphFilter]) { locations(filters: $filters) { edges { node { ${NODE} } } } }`,
      { filters: [{ field: 'id', operation: 'eq', value: leeds.id }] },
    );
    t.deepEqual(byId.locations.edges, [{ node: leeds }]);
    const inUk = await f.data(
      f.admin,
      `{ locations(filters: [{field: regionId, operation: eq, value: "${uk}"}], order: {field: code, direction: asc}) { edges { node { code } } } }`,
    );
    t.deepEqual(
      inUk.locations.edges.map((e: { node: { code: string } }) => e.node.code),
      ['LDS', 'LON'],
    );
    // As a sync service pages through them: first 2, then on by offset until hasNextPage is false.
    const PAGE = `query GetAllLocation($first: Int!, $offset: Int) { locations(first: $first, offset: $offset) { pageInfo { hasNextPage endCursor } edges { node { ${NODE} } } } }`;
    const names: string[] = [];
    for (let offset = 0, more = true; more; offset += 2) {
      const page = (await f.data(f.admin, PAGE, { first: 2, offset })).locations;
      names.push(...page.edges.map((e: { node: { name: string } }) => e.node.name));
      more = page.pageInfo.hasNextPage;
    }
    t.deepEqual(names, ['Leeds Annexe', 'Leeds Centre', 'London Bridge Centre', 'Manchester Hub', 'Online']);
  },
);

test.serial("when events are listed with their location's region, then the regions of a page are read in one statement", async (t) => {
  const template = (await f.data(f.admin, 'mutation { courseTemplate { create(input: {title: "Forklift"}) { courseTemplate { id } } } }'))
    .courseTemplate.create.courseTemplate.id;
  const where = await f.data(f.admin, '{ locations { edges { node { id name } } } }');
  const idOf = (name: string) => where.locations.edges.find((e: { node: { name: string } }) => e.node.name === name).node.id;
  for (const [name, day] of [
    ['London Bridge Centre', '10'],
    ['Leeds Centre', '11'],
    ['Online', '12'],
    ['London Bridge Centre', '13'],
  ] as const) {
    const d = await f.data(
      f.admin,
      'mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { errors { message } } } }',
      {
        input: {
          courseTemplateId: template,
          eventType: 'public',
          timeZoneName: 'Europe/London',
          locationId: idOf(name),
          taxTypeId: taxType,
          classroomStartDateTime: `2027-05-${day}T09:00`,
        },
      },
    );
    t.deepEqual(d.event.createClassroom.errors, []);
  }
  const statements: string[] = [];
  const listen = (q: { sql: string }) => statements.push(q.sql);
  f.ctx.rt.knex.on('query', listen);
  let d;
  try {
    d = await f.data(
      f.admin,
      `query ($filters: [EventFieldGraphFilter]) { events(filters: $filters) { edges { node { location { id name region { code } } } } } }`,
      {
        filters: [{ field: 'courseTemplate', operation: 'eq', value: template }],
      },
    );
  } finally {
    f.ctx.rt.knex.off('query', listen);
  }
  t.deepEqual(
    d.events.edges.map((e: { node: { location: { name: string; region: { code: string } | null } } }) => [
      e.node.location.name,
      e.node.location.region?.code ?? null,
    ]),
    [
      ['London Bridge Centre', 'UK'],
      ['Leeds Centre', 'UK'],
      ['Online', null],
      ['London Bridge Centre', 'UK'],
    ],
  );
  t.is(statements.filter((s) => /\bregions\b/.test(s)).length, 1, statements.join('\n'));
});

test.serial(
  'when locations and prices read their regions, then one definition reads them: no loader key is defined twice in the source',
  (t) => {
    // Two definitions under one key: whichever a request makes first serves both, whatever the other reads.
    const src = path.resolve(import.meta.dirname, '../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.ts'));
    const defined = new Map<string, string[]>();
    for (const file of files) {
      for (const m of readFileSync(path.join(src, file), 'utf8').matchAll(/\.loader(?:<[^>]*>)?\(\s*'([^']+)'/g))
        defined.set(m[1]!, [...(defined.get(m[1]!) ?? []), file]);
    }
    t.true(defined.has('Region.byId'));
    t.deepEqual(
      [...defined].filter(([, where]) => where.length > 1),
      [],
    );
  },
);

test.serial(
  'when a user lacks LOCATION_VIEW or LOCATION_EDIT, then the list or the write is FORBIDDEN and nothing is written',
  async (t) => {
    const viewer = await f.tokenFor(f.tenant, 'viewer');
    const list = await f.gql(viewer, '{ locations { edges { node { code region { code } } } } }');
    t.falsy(list.json.errors);
    const write = await f.gql(
      viewer,
      `mutation { location { update(locationId: "${toGlobalId('Location', 1)}", input: {code: "Z"}) { errors { message } } } }`,
    );
    t.is(write.json.errors[0].extensions.code, 'FORBIDDEN');
    const none = await f.tokenFor(f.tenant, 'events-only', ['EVENT_VIEW']);
    const refused = await f.gql(none, '{ locations { edges { node { code } } } }');
    t.is(refused.json.errors[0].extensions.code, 'FORBIDDEN');
    const row = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('locations').where({ code: 'Z' }).first());
    t.is(row, undefined);
  },
);
