import test from 'ava';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';

let f: RestFixture;
let eventId: number;
let templateId: number;
let contactIds: number[];
let mappings: { id: number; label: string; type_id: number }[];

const EVENT_FIELDS = [
  'id',
  'event_template_id',
  'course_id',
  'course',
  'code',
  'title',
  'type',
  'company_id',
  'region_id',
  'region',
  'account_id',
  'account',
  'account_venue',
  'venue_id',
  'venue',
  'location',
  'tag_id',
  'tag',
  'tax_type_id',
  'tax_type',
  'personnel_administrator_id',
  'personnel_administrator',
  'personnel_tutor_id',
  'personnel_tutor',
  'personnel',
  'prices',
  'price',
  'currency_code',
  'start_date',
  'end_date',
  'start_time',
  'end_time',
  'classroom_start',
  'classroom_end',
  'registration_deadline',
  'non_working_days',
  'disposition',
  'notes',
  'notes2',
  'overall_attendance',
  'delegates_max',
  'delegates_reserved',
  'delegates_booked',
  'delegates_actual',
  'is_sold_out',
  'is_online',
  'is_cancelled',
  'is_provisional',
  'is_lms',
];
const REDUCED_OUT = [
  'prices',
  'delegates_reserved',
  'delegates_booked',
  'is_sold_out',
  'is_online',
  'is_cancelled',
  'registration_deadline',
  'classroom_start',
  'classroom_end',
  'notes',
  'notes2',
  'event_template_id',
  'overall_attendance',
  'account_venue',
];
const CONTACT_FIELDS = [
  'id',
  'first_name',
  'middle_name',
  'last_name',
  'salutation',
  'job_title',
  'department',
  'organisation',
  'company_id',
  'account_id',
  'email',
  'tel',
  'mobile',
  'fax',
  'address_unit',
  'address_street',
  'address_locality',
  'address_town',
  'address_region',
  'address_postcode',
  'address_country_id',
  'membership_number',
  'contract_notes',
  'created_on',
  'created_by_id',
  'import_ref',
  'external_id',
  'marketing_activity_id',
  'source1',
  'source2',
  'lms_bio',
  'tutor_bio',
  'notes',
  'inactive',
  'dormant',
  'dont_mail',
  'no_third_party',
  'is_admin',
  'is_tutor',
  'is_staff',
  'is_deleted',
];

test.serial.before(async () => {
  f = await restFixture('rdel');
  templateId = (await f.api('POST', 'event/event_templates', { title: 'First Aid at Work', code: 'FAW' })).json.id;
  for (const [label, type_id] of [
    ['Assessment date', 2],
    ['Practical passed', 3],
    ['Theory score', 4],
  ] as const) {
    const r = await f.api('POST', `system/custom_templates/${templateId}/mappings`, { label, type_id });
    mappings = r.json.mappings;
  }
  const ev = await f.api('POST', 'event/public_events', {
    event_template_id: templateId,
    start_date: '2027-03-10',
    end_date: '2027-03-12',
    price: 395,
    currency_code: 'GBP',
    delegates_max: 3,
  });
  eventId = ev.json.id;
  contactIds = [];
  for (let i = 0; i < 8; i++)
    contactIds.push((await f.api('POST', 'crm/contacts', { first_name: `P${i}`, last_name: 'Person', email: `p${i}@x.test` })).json.id);
});
test.after.always(async () => f?.close());

test.serial('when a delegate is created, then the record embeds the full event and contact of the contract', async (t) => {
  const r = await f.api('POST', 'event/delegates', { event_id: eventId, contact_id: contactIds[0], notes: 'Vegetarian' });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json), [
    'id',
    'event_id',
    'contact_id',
    'registration_id',
    'comms_contact_id',
    'comms_contact',
    'notes',
    'overall_attendance',
    'cancelled_date',
    'passed',
    'num_delegates',
    'event',
    'contact',
  ]);
  t.like(r.json, { event_id: eventId, contact_id: contactIds[0], notes: 'Vegetarian', num_delegates: 1, registration_id: null });
  t.deepEqual(Object.keys(r.json.event), EVENT_FIELDS);
  t.like(r.json.event, {
    id: eventId,
    event_template_id: templateId,
    title: 'First Aid at Work',
    type: 'public',
    delegates_booked: 1,
    is_sold_out: false,
    price: 395,
  });
  t.deepEqual(r.json.event.course, { id: templateId, code: 'FAW', title: 'First Aid at Work' });
  t.deepEqual(r.json.event.prices, [{ price: 395, currency_code: 'GBP' }]);
  t.deepEqual(Object.keys(r.json.contact), CONTACT_FIELDS);
  t.regex(r.json.contact.created_on, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/, 'ISO 8601 without zone');
});

test.serial('when delegates exceed delegates_max, then creation still succeeds (overbooking is not prevented)', async (t) => {
  for (const c of contactIds.slice(1, 4)) t.is((await f.api('POST', 'event/delegates', { event_id: eventId, contact_id: c })).status, 200);
  const ev = await f.api('GET', `event/public_events/${eventId}`);
  t.is(ev.json.delegates_booked, 4);
  t.true(ev.json.is_sold_out);
});

test.serial(
  'when N clients name an unnamed row of N places at once, then exactly N named rows exist, the row is gone, and one more gets 404',
  async (t) => {
    const n = 4;
    const unnamed = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('delegates').insert({ event_id: eventId, num_places: n }).returning('id'),
    );
    const id = unnamed[0].id as number;
    const list = await f.api('GET', `event/delegates?id=${id}`);
    t.like(list.json[0], { contact_id: null, num_places: n, num_delegates: n });
    const results = await Promise.all(
      contactIds.slice(4, 4 + n).map((c) => f.api('POST', `event/delegates/${id}/name`, { contact_id: c })),
    );
    t.deepEqual(
      results.map((r) => r.status),
      Array(n).fill(200),
    );
    const named = results.map((r) => r.json);
    t.deepEqual(new Set(named.map((d) => d.contact_id)), new Set(contactIds.slice(4, 4 + n)));
    t.is((await f.api('GET', `event/delegates/${id}`)).status, 404, 'the unnamed row was deleted');
    const more = await f.api('POST', `event/delegates/${id}/name`, { contact_id: contactIds[0] });
    t.is(more.status, 404);
    // The naming response: reduced event, contact with user_id.
    const one = named[0];
    for (const k of REDUCED_OUT) t.false(k in one.event, k);
    t.true('title' in one.event && 'delegates_max' in one.event);
    t.true('user_id' in one.contact);
    t.is(one.contact.user_id, null);
  },
);

test.serial('when naming without contact_id, then 400; with an unknown contact or delegate, then 404', async (t) => {
  const unnamed = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('delegates').insert({ event_id: eventId, num_places: 2 }).returning('id'),
  );
  const id = unnamed[0].id as number;
  const missing = await f.api('POST', `event/delegates/${id}/name`, {});
  t.is(missing.status, 400);
  t.is(missing.json.error.code, 'contact_id_required');
  t.is((await f.api('POST', `event/delegates/${id}/name`, { contact_id: 99999 })).status, 404);
  t.is((await f.api('POST', 'event/delegates/99999/name', { contact_id: contactIds[0] })).status, 404);
  const still = await f.api('GET', `event/delegates/${id}`);
  t.is(still.json.num_places, 2, 'nothing changed');
});

test.serial('when scores are posted, then GET and POST answer the entries; bad keys or values write nothing', async (t) => {
  const d = (await f.api('POST', 'event/delegates', { event_id: eventId, contact_id: contactIds[0] })).json;
  t.deepEqual((await f.api('GET', `event/delegates/${d.id}/scores`)).json, []);
  const [date, check, score] = mappings;
  const r = await f.api('POST', `event/delegates/${d.id}/scores`, {
    [String(date!.id)]: '2027-03-12',
    [String(check!.id)]: 'on',
    [String(score!.id)]: '87',
  });
  t.is(r.status, 200);
  t.deepEqual(r.json, [
    { mapping: { label: 'Assessment date', id: date!.id, type_id: 2 }, value: '2027-03-12' },
    { mapping: { label: 'Practical passed', id: check!.id, type_id: 3 }, value: 'on' },
    { mapping: { label: 'Theory score', id: score!.id, type_id: 4 }, value: '87' },
  ]);
  t.deepEqual((await f.api('GET', `event/delegates/${d.id}/scores`)).json, r.json);

  const bad = await f.api('POST', `event/delegates/${d.id}/scores`, {
    [String(score!.id)]: 90,
    '99999': 'x',
    [String(date!.id)]: 'yesterday',
  });
  t.is(bad.status, 400);
  t.deepEqual(Object.keys(bad.json.error.details.fields).sort(), [String(date!.id), String(score!.id), '99999'].sort());
  t.deepEqual((await f.api('GET', `event/delegates/${d.id}/scores`)).json, r.json, 'nothing was written');
  const update = await f.api('POST', `event/delegates/${d.id}/scores`, { [String(score!.id)]: '91' });
  t.is(update.json.find((e: { mapping: { id: number } }) => e.mapping.id === score!.id).value, '91');
});

test('the public event and custom template make the scores rule work: event_template_id, then its mappings', async (t) => {
  const ev = await f.api('GET', `event/public_event/${eventId}`);
  t.is(ev.json.event_template_id, templateId);
  const ct = await f.api('GET', `system/custom_template/${ev.json.event_template_id}`);
  t.is(ct.status, 200);
  t.deepEqual(
    ct.json.mappings.map((m: { label: string; type_id: number }) => [m.label, m.type_id]),
    [
      ['Assessment date', 2],
      ['Practical passed', 3],
      ['Theory score', 4],
    ],
  );
  t.deepEqual((await f.api('GET', `system/custom_templates/${templateId}`)).json, ct.json);
});

test('when a delegate is deleted, then the deleted record is answered', async (t) => {
  const d = (await f.api('POST', 'event/delegates', { event_id: eventId, contact_id: contactIds[7] })).json;
  const r = await f.api('DELETE', `event/delegates/${d.id}`);
  t.is(r.status, 200);
  t.is(r.json.id, d.id);
  t.is((await f.api('GET', `event/delegates/${d.id}`)).status, 404);
});

test("sub_categories are in their order (priority, then id) in GET :id, the list, PUT and DELETE answers, and a child is nobody else's", async (t) => {
  const parent = (await f.api('POST', 'event/categories', { name: 'Ordered', priority: 1 })).json;
  const other = (await f.api('POST', 'event/categories', { name: 'Other', priority: 1 })).json;
  const made: { id: number; name: string }[] = [];
  for (const [name, priority] of [
    ['C', 3],
    ['A', 1],
    ['B', 2],
    ['A2', 1],
  ] as const)
    made.push((await f.api('POST', 'event/categories', { name, priority, parent_id: parent.id })).json);
  const expected = ['A', 'A2', 'B', 'C'].map((n) => {
    const c = made.find((m) => m.name === n)!;
    return { id: c.id, name: n, introduction: null };
  });
  t.deepEqual((await f.api('GET', `event/categories/${parent.id}`)).json.sub_categories, expected);
  const listed = (await f.api('GET', `event/categories?id=${parent.id}`)).json;
  t.deepEqual(listed[0].sub_categories, expected);
  t.deepEqual((await f.api('GET', `event/categories/${other.id}`)).json.sub_categories, []);
  t.deepEqual((await f.api('PUT', `event/categories/${parent.id}`, { name: 'Ordered again' })).json.sub_categories, expected);
  const leaf = made.find((m) => m.name === 'C')!;
  t.deepEqual((await f.api('DELETE', `event/categories/${leaf.id}`)).json, {
    id: leaf.id,
    name: 'C',
    introduction: null,
    sub_categories: [],
  });
  t.deepEqual((await f.api('GET', `event/categories/${parent.id}`)).json.sub_categories, expected.slice(0, 3));
});

test('when a category is created with priority, then priority is stored but never returned, and sub_categories list its children', async (t) => {
  const parent = await f.api('POST', 'event/categories', { name: 'Health & Safety', priority: 2 });
  t.deepEqual(Object.keys(parent.json), ['id', 'name', 'introduction', 'sub_categories']);
  t.deepEqual(parent.json.sub_categories, []);
  const child = await f.api('POST', 'event/categories', {
    name: 'First Aid',
    priority: 1,
    parent_id: parent.json.id,
    introduction: 'Basics',
  });
  const again = await f.api('GET', `event/categories/${parent.json.id}`);
  t.deepEqual(again.json.sub_categories, [{ id: child.json.id, name: 'First Aid', introduction: 'Basics' }]);
  const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('categories').where({ id: parent.json.id }).first());
  t.is(stored.priority, 2);
  const noPriority = await f.api('POST', 'event/categories', { name: 'X' });
  t.is(noPriority.status, 404);
  t.deepEqual(noPriority.json.error.details.fields, { priority: 'is required' });
});

test('when a public event is updated, then only the sent fields change; dates out of order are refused with nothing written', async (t) => {
  const ev = (
    await f.api('POST', 'event/public_events', { event_template_id: templateId, start_date: '2027-05-01', end_date: '2027-05-02' })
  ).json;
  const r = await f.api('PUT', `event/public_events/${ev.id}`, { title: 'First Aid at Work (evening)', location: 'Leeds' });
  t.is(r.status, 200);
  t.deepEqual(r.json, { ...ev, title: 'First Aid at Work (evening)', location: 'Leeds' });
  const bad = await f.api('PUT', `event/public_events/${ev.id}`, { end_date: '2027-04-01' });
  t.is(bad.status, 400);
  t.deepEqual(bad.json.error.details.fields, { end_date: 'must not be before start_date' });
  t.is((await f.api('GET', `event/public_event/${ev.id}`)).json.end_date, '2027-05-02');
});
