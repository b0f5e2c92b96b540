import test from 'ava';
import { restFixture, type RestFixture } from '../helpers/rest.js';

let f: RestFixture;
const ids: number[] = [];
test.serial.before(async () => {
  f = await restFixture('rfil');
  const people = [
    ['Ada', 'Lovelace', 'ada@a.test', true],
    ['Alan', 'Turing', 'alan@a.test', false],
    ['Grace', 'Hopper', 'grace@b.test', false],
    ['Edsger', 'Dijkstra', 'edsger@b.test', true],
    ['Barbara', 'Liskov', 'barbara@c.test', false],
  ] as const;
  for (const [first_name, last_name, email, is_tutor] of people)
    ids.push((await f.api('POST', 'crm/contacts', { first_name, last_name, email, is_tutor })).json.id);
});
test.after.always(async () => f?.close());

const names = (r: { json: { first_name: string }[] }) => r.json.map((c) => c.first_name);

test('filters: eq (explicit and bare), ne, lt, lte, gt, gte', async (t) => {
  t.deepEqual(names(await f.api('GET', 'crm/contacts?last_name__eq=Hopper')), ['Grace']);
  t.deepEqual(names(await f.api('GET', 'crm/contacts?last_name=Hopper')), ['Grace']);
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__ne=${ids[0]}&is_tutor=true`)), ['Edsger']);
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__lt=${ids[2]}`)), ['Ada', 'Alan']);
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__lte=${ids[1]}`)), ['Ada', 'Alan']);
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__gt=${ids[2]}`)), ['Edsger', 'Barbara']);
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__gte=${ids[4]}`)), ['Barbara']);
});

test('filters: in, notin, like; several filters combine with AND', async (t) => {
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__in=${ids[0]},${ids[3]}`)), ['Ada', 'Edsger']);
  t.deepEqual(names(await f.api('GET', `crm/contacts?id__notin=${ids[0]},${ids[1]},${ids[2]}`)), ['Edsger', 'Barbara']);
  t.deepEqual(names(await f.api('GET', 'crm/contacts?email__like=%25%40b.test')), ['Grace', 'Edsger']);
  t.deepEqual(names(await f.api('GET', 'crm/contacts?email__like=%25b.test&is_tutor=false')), ['Grace']);
});

test('ordering and limits: _order with -desc, _limit, keyset paging with id__gt until empty', async (t) => {
  t.deepEqual(names(await f.api('GET', 'crm/contacts?_order=-last_name&_limit=2')), ['Alan', 'Ada']);
  t.deepEqual(names(await f.api('GET', 'crm/contacts?_order=is_tutor,-first_name')), ['Grace', 'Barbara', 'Alan', 'Edsger', 'Ada']);
  const seen: string[] = [];
  let last = 0;
  for (;;) {
    const page = await f.api('GET', `crm/contacts?id__gt=${last}&_order=id&_limit=2`);
    if (!page.json.length) break;
    seen.push(...names(page));
    last = page.json.at(-1).id;
  }
  t.deepEqual(seen, ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara']);
});

test('a bad filter is a 400 naming it: unknown field, unknown operator, wrong type, bad limit, unknown parameter', async (t) => {
  const cases: [string, RegExp][] = [
    ['colour=red', /Unknown filter field 'colour'/],
    ['id__approx=3', /Unknown filter operator 'approx'/],
    ['id=abc', /'abc' is not a valid integer for id/],
    ['is_tutor=maybe', /not a valid boolean/],
    ['id__like=1%25', /__like applies to text fields/],
    ['_limit=5000', /_limit must be a whole number from 1 to 1000/],
    ['_order=-password', /Cannot order by unknown field 'password'/],
    ['_offset=10', /Unknown parameter '_offset'/],
  ];
  for (const [qs, message] of cases) {
    const r = await f.api('GET', `crm/contacts?${qs}`);
    t.is(r.status, 400, qs);
    t.is(r.json.error.code, 'invalid_filter', qs);
    t.regex(r.json.error.message, message, qs);
  }
});

test('filter values never reach SQL text', async (t) => {
  const r = await f.api('GET', `crm/contacts?last_name=${encodeURIComponent("x'; drop table contacts; --")}`);
  t.is(r.status, 200);
  t.deepEqual(r.json, []);
  t.is((await f.api('GET', 'crm/contacts')).json.length, 5);
});

test('the default page is 100 records', async (t) => {
  const campaign = (await f.api('POST', 'crm/campaigns', { name: 'Many' })).json.id;
  await Promise.all(
    Array.from({ length: 105 }, (_, i) =>
      f.api('POST', 'crm/marketing_activities', { name: `A${i}`, description: 'd', campaign_id: campaign }),
    ),
  );
  t.is((await f.api('GET', 'crm/marketing_activities')).json.length, 100);
  t.is((await f.api('GET', 'crm/marketing_activities?_limit=1000')).json.length, 105);
});
