import test, { type ExecutionContext } from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { request } from '../helpers/harness.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';

let f: RestFixture;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document is walked dynamically
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

test.serial.before(async () => {
  f = await restFixture('roas');
  doc = (await request(f.port, { path: '/api/v2/openapi.json' })).json;
  ajv.addSchema({ $id: 'lectern', components: doc.components });
  const company = (await f.api('POST', 'crm/companies', { name: 'Acme' })).json;
  const contact = (await f.api('POST', 'crm/contacts', { first_name: 'Ann', company_id: company.id })).json;
  const campaign = (await f.api('POST', 'crm/campaigns', { name: 'C', start_date: '2027-01-01', target_sales: 1000.5 })).json;
  await f.api('POST', 'crm/marketing_activities', { name: 'M', description: 'D', campaign_id: campaign.id, cost: 10, date: '2027-02-01' });
  const parent = (await f.api('POST', 'event/categories', { name: 'P', priority: 1 })).json;
  await f.api('POST', 'event/categories', { name: 'C', priority: 1, parent_id: parent.id });
  const tpl = (await f.api('POST', 'event/event_templates', { title: 'T' })).json;
  await f.api('POST', `system/custom_templates/${tpl.id}/mappings`, { label: 'Score', type_id: 4 });
  const ev = (
    await f.api('POST', 'event/public_events', {
      event_template_id: tpl.id,
      start_time: '09:00',
      classroom_start: '2027-03-01T09:00:00',
      personnel_tutor_id: contact.id,
    })
  ).json;
  const d = (await f.api('POST', 'event/delegates', { event_id: ev.id, contact_id: contact.id })).json;
  await f.api('POST', `event/delegates/${d.id}/scores`, {
    [String((await f.api('GET', `system/custom_templates/${tpl.id}`)).json.mappings[0].id)]: '5',
  });
});
test.after.always(async () => f?.close());

/** Validates a body against a schema of the document (its local refs point at the registered components). */
function validate(t: ExecutionContext, schema: unknown, body: unknown, label: string) {
  const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"lectern#/components/'));
  t.true(ajv.validate(resolved, body), `${label}: ${ajv.errorsText(ajv.errors)}`);
}

test('every list and read response of every resource matches the OpenAPI document', async (t) => {
  let checked = 0;
  for (const [path, item] of Object.entries(
    doc.paths as Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> }>>,
  )) {
    if (path.includes('{id}/') || !item.get) continue;
    const schema = item.get.responses['200']!.content!['application/json'].schema;
    const list = await f.api('GET', path.replace('/api/v2/', '').replace('/{id}', ''));
    const target = path.endsWith('{id}') ? list.json[0] : list.json;
    t.truthy(target, path);
    if (path.endsWith('{id}')) {
      const one = await f.api('GET', path.replace('/api/v2/', '').replace('{id}', String(target.id)));
      validate(t, schema, one.json, path);
    } else {
      validate(t, schema, target, path);
    }
    checked++;
  }
  t.true(checked >= 18);
});

test('score entries match the document', async (t) => {
  const d = (await f.api('GET', 'event/delegates')).json[0];
  const scores = await f.api('GET', `event/delegates/${d.id}/scores`);
  t.is(scores.json.length, 1);
  validate(
    t,
    doc.paths['/api/v2/event/delegates/{id}/scores'].get.responses['200'].content['application/json'].schema,
    scores.json,
    'scores',
  );
});

test('error responses match the Error schema', async (t) => {
  const r = await f.api('GET', 'crm/contacts/99999');
  validate(t, { $ref: '#/components/schemas/Error' }, r.json, 'error');
});
