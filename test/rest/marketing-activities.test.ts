import test from 'ava';
import { restFixture, type RestFixture } from '../helpers/rest.js';

let f: RestFixture;
let campaignId: number;
test.serial.before(async () => {
  f = await restFixture('rma');
  campaignId = (await f.api('POST', 'crm/campaigns', { name: 'Spring', description: 'Spring push' })).json.id;
});
test.after.always(async () => f?.close());

const CONTRACT_FIELDS = [
  'id',
  'name',
  'description',
  'campaign_id',
  'campaign',
  'type_id',
  'type',
  'purpose_id',
  'purpose',
  'company_id',
  'currency',
  'cost',
  'date',
  'actual_contacts',
  'actual_conversions',
  'actual_submissions',
  'target_contacts',
  'target_conversions',
  'target_submissions',
  'target_sales',
  'is_finished',
  'region_categories',
  'courses',
];
const CAMPAIGN_FIELDS = [
  'id',
  'name',
  'description',
  'company_id',
  'currency',
  'tag_id',
  'tag',
  'start_date',
  'end_date',
  'target_contacts',
  'target_conversions',
  'target_submissions',
  'target_sales',
  'actual_contacts',
  'actual_conversions',
  'actual_submissions',
  'is_finished',
  'contributions',
];

test.serial(
  'when a marketing activity is created, then the full record comes back with contract defaults and the embedded campaign',
  async (t) => {
    const r = await f.api('POST', 'crm/marketing_activities', {
      name: 'Email blast',
      description: 'March newsletter',
      campaign_id: campaignId,
    });
    t.is(r.status, 200);
    t.deepEqual(Object.keys(r.json), CONTRACT_FIELDS);
    t.like(r.json, { name: 'Email blast', description: 'March newsletter', campaign_id: campaignId, type: null, cost: null, date: null });
    t.like(r.json, { actual_contacts: 0, actual_conversions: 0, actual_submissions: 0, is_finished: false });
    t.deepEqual(r.json.region_categories, []);
    t.deepEqual(r.json.courses, []);
    t.deepEqual(Object.keys(r.json.campaign), CAMPAIGN_FIELDS);
    t.like(r.json.campaign, { id: campaignId, name: 'Spring', actual_contacts: 0, is_finished: false, contributions: [] });
    // The stored row is the one answered.
    const got = await f.api('GET', `crm/marketing_activities/${r.json.id}`);
    t.deepEqual(got.json, r.json);
  },
);

test.serial('when a POST cannot create, then 404 names each field at fault and nothing is written', async (t) => {
  const before = (await f.api('GET', 'crm/marketing_activities')).json.length;
  const r = await f.api('POST', 'crm/marketing_activities', { name: 7, campaign_id: 999999, colour: 'red' });
  t.is(r.status, 404);
  t.is(r.json.error.code, 'could_not_create');
  t.deepEqual(r.json.error.details.fields, {
    name: 'must be a string',
    colour: 'unknown field',
    description: 'is required',
    campaign_id: 'campaign 999999 does not exist',
  });
  t.is((await f.api('GET', 'crm/marketing_activities')).json.length, before);
});

test.serial('when a PUT changes one field, then only it changes and the full record is answered', async (t) => {
  const created = (
    await f.api('POST', 'crm/marketing_activities', { name: 'Webinar', description: 'Old', campaign_id: campaignId, cost: 120.5 })
  ).json;
  const r = await f.api('PUT', `crm/marketing_activities/${created.id}`, { description: 'New text' });
  t.is(r.status, 200);
  t.deepEqual(r.json, { ...created, description: 'New text' });
  t.is(r.json.cost, 120.5);
  const bad = await f.api('PUT', `crm/marketing_activities/${created.id}`, { cost: 'lots' });
  t.is(bad.status, 400);
  t.deepEqual(bad.json.error.details.fields, { cost: 'must be a number' });
});

test.serial('when a DELETE succeeds, then it answers the deleted record and the record is gone', async (t) => {
  const created = (await f.api('POST', 'crm/marketing_activities', { name: 'Flyer', description: 'Print', campaign_id: campaignId })).json;
  const r = await f.api('DELETE', `crm/marketing_activities/${created.id}`);
  t.is(r.status, 200);
  t.deepEqual(r.json, created);
  t.is((await f.api('GET', `crm/marketing_activities/${created.id}`)).status, 404);
});

test('when the entity does not exist, then GET, PUT and DELETE answer 404', async (t) => {
  for (const [method, body] of [
    ['GET', undefined],
    ['PUT', { name: 'x' }],
    ['DELETE', undefined],
  ] as const) {
    const r = await f.api(method, 'crm/marketing_activities/987654', body);
    t.is(r.status, 404, method);
    t.is(r.json.error.code, 'not_found');
  }
  t.is((await f.api('GET', 'crm/marketing_activities/abc')).status, 404);
});

test('when a campaign still has activities, then deleting it is refused with 409', async (t) => {
  const c = (await f.api('POST', 'crm/campaigns', { name: 'Busy' })).json;
  await f.api('POST', 'crm/marketing_activities', { name: 'A', description: 'B', campaign_id: c.id });
  const r = await f.api('DELETE', `crm/campaigns/${c.id}`);
  t.is(r.status, 409);
  t.is(r.json.error.code, 'in_use');
  t.is((await f.api('GET', `crm/campaigns/${c.id}`)).status, 200);
});

test('when the body is not JSON or not an object, then 400', async (t) => {
  const r = await f.api('POST', 'crm/marketing_activities', undefined, { rawBody: '{"name":' });
  t.is(r.status, 400);
  t.is(r.json.error.code, 'invalid_json');
  const arr = await f.api('POST', 'crm/marketing_activities', [1, 2]);
  t.is(arr.status, 400);
  t.is(arr.json.error.code, 'invalid_body');
});
