import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Custom fields in Core GraphQL as integrations read them (real-clients.md section 3): the
 * `customFieldTemplate(type: SupportsCustomField!)` root (a sync service asks for every kind in
 * turn: `customFieldDefinitions { key label description type isRequired roles }`), and
 * `customFieldValues { definitionKey definitionLocator value definition { key label } }` on
 * course templates, learning paths and events, where `definitionLocator` is the definition's
 * global id, which value inputs take in place of the key.
 */
let f: GraphQLFixture;
const defs: Record<string, string> = {};
let template: string;
let path: string;
let location: string;
let taxType: string;

const TEMPLATE = `query GetCustomFieldDefinitions($type: SupportsCustomField!) {
  customFieldTemplate(type: $type) { customFieldDefinitions { key label description type isRequired roles } } }`;

async function define(input: Record<string, unknown>): Promise<string> {
  const d = await f.data(
    f.admin,
    'mutation ($input: CustomFieldDefinitionInput!) { customFieldDefinition { create(input: $input) { customFieldDefinition { id } errors { label message } } } }',
    { input },
  );
  if (d.customFieldDefinition.create.errors.length) throw new Error(JSON.stringify(d));
  return d.customFieldDefinition.create.customFieldDefinition.id;
}

test.serial.before(async () => {
  f = await graphqlFixture('ccf');
  defs.tagline = await define({
    key: 'tagline',
    label: 'Tagline',
    description: 'One line under the title',
    type: 'TEXT',
    appliesTo: 'COURSE_TEMPLATE',
  });
  defs.audience = await define({ key: 'audience', label: 'Audience', type: 'TEXTAREA', appliesTo: 'COURSE_TEMPLATE' });
  defs.room = await define({ key: 'room_notes', label: 'Room notes', description: 'For the venue', type: 'TEXT', appliesTo: 'EVENT' });
  defs.level = await define({ key: 'level', label: 'Level', type: 'NUMBER', appliesTo: 'LEARNING_PATH' });
  const made = await f.data(
    f.admin,
    `mutation {
    courseTemplate { create(input: {title: "Fire Safety", customFieldValues: [{definitionKey: "tagline", value: "Stay safe"}, {definitionKey: "audience", value: "Everyone"}]}) { courseTemplate { id } errors { message } } }
    learningPaths { create(input: {name: "Safety path", customFieldValues: [{definitionKey: "level", value: "2"}]}) { learningPath { id } errors { message } } }
    location { create(input: {name: "Riverside Centre", timeZoneName: "Europe/London"}) { location { id } errors { message } } }
    taxType { create(input: {name: "Standard VAT", rate: 20}) { taxType { id } errors { message } } } }`,
  );
  template = made.courseTemplate.create.courseTemplate.id;
  path = made.learningPaths.create.learningPath.id;
  location = made.location.create.location.id;
  taxType = made.taxType.create.taxType.id;
});
test.after.always(async () => f?.close());

test.serial(
  'when a client asks for the custom field template of a course template, an event and a learning path, then each answers its own definitions with their descriptions',
  async (t) => {
    const of = async (type: string) => (await f.data(f.admin, TEMPLATE, { type })).customFieldTemplate.customFieldDefinitions;
    t.deepEqual(await of('CourseTemplate'), [
      { key: 'tagline', label: 'Tagline', description: 'One line under the title', type: 'TEXT', isRequired: false, roles: [] },
      { key: 'audience', label: 'Audience', description: null, type: 'TEXTAREA', isRequired: false, roles: [] },
    ]);
    t.deepEqual(await of('Event'), [
      { key: 'room_notes', label: 'Room notes', description: 'For the venue', type: 'TEXT', isRequired: false, roles: [] },
    ]);
    t.deepEqual(await of('LearningPath'), [
      { key: 'level', label: 'Level', description: null, type: 'NUMBER', isRequired: false, roles: [] },
    ]);
    // The built-in course description fields are not custom field values a client can read or set: not listed.
    const all = await f.data(f.admin, '{ customFieldDefinitions(first: 100) { edges { node { key isBuiltIn } } } }');
    t.true(all.customFieldDefinitions.edges.some((e: { node: { isBuiltIn: boolean } }) => e.node.isBuiltIn));
  },
);

test.serial(
  'when a client asks for every kind it knows in turn, then the kinds Lectern has no custom fields on answer an empty list',
  async (t) => {
    const others = [
      'Account',
      'Achievement',
      'Company',
      'Contact',
      'Content',
      'Course',
      'Learner',
      'LearningPathLearner',
      'Opportunity',
      'OpportunityEventInterestLearner',
      'OpportunityPassInterestLearner',
      'OpportunityPathInterestLearner',
      'Session',
      'StockItem',
      'TokenIssue',
    ];
    for (const type of others) {
      // As the sync service sends it: an indented document, the kind as a variable.
      const res = await f.gql(f.admin, `\n            ${TEMPLATE}\n            `, { type });
      t.is(res.status, 200);
      t.deepEqual(res.json, { data: { customFieldTemplate: { customFieldDefinitions: [] } } }, type);
    }
    // And as a literal, with the kind echoed back.
    const d = await f.data(f.admin, '{ customFieldTemplate(type: StockItem) { type customFieldDefinitions { key } } }');
    t.deepEqual(d.customFieldTemplate, { type: 'StockItem', customFieldDefinitions: [] });
  },
);

test.serial('when the kind is not one the API knows, or is declared as a String, then the request fails with a clear error', async (t) => {
  const unknown = await f.gql(f.admin, TEMPLATE, { type: 'Widget' });
  t.regex(
    unknown.json.errors[0].message,
    /^Variable "\$type" got invalid value "Widget"; Value "Widget" does not exist in "SupportsCustomField" enum/,
  );
  t.is(unknown.json.data, undefined);
  const stringType = await f.gql(f.admin, 'query ($type: String) { customFieldTemplate(type: $type) { customFieldDefinitions { key } } }', {
    type: 'Event',
  });
  t.regex(stringType.json.errors[0].message, /Variable "\$type" of type "String" used in position expecting type "SupportsCustomField!"/);
  t.is(stringType.json.data, undefined);
});

test.serial('when a user lacks CUSTOM_FIELD_VIEW, then the custom field template is FORBIDDEN', async (t) => {
  const token = await f.tokenFor(f.tenant, 'templates-only', ['COURSE_TEMPLATE_VIEW']);
  const res = await f.gql(token, TEMPLATE, { type: 'CourseTemplate' });
  t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
  t.is(res.json.data, null);
});

test.serial(
  "when custom field values are read on a course template, a learning path and an event, then definitionLocator is the definition's global id",
  async (t) => {
    const VALUES = 'customFieldValues { definitionKey definitionLocator value definition { key label } }';
    const d = await f.data(
      f.admin,
      `query ($ct: [CourseTemplateFieldGraphFilter]!, $lp: [LearningPathFieldGraphFilter]!) {
    courseTemplates(filters: $ct) { edges { node { ${VALUES} } } }
    learningPaths(filters: $lp) { edges { node { ${VALUES} } } } }`,
      {
        ct: [{ field: 'id', operation: 'eq', value: template }],
        lp: [{ field: 'id', operation: 'eq', value: path }],
      },
    );
    t.deepEqual(d.courseTemplates.edges[0].node.customFieldValues, [
      { definitionKey: 'tagline', definitionLocator: defs.tagline, value: 'Stay safe', definition: { key: 'tagline', label: 'Tagline' } },
      {
        definitionKey: 'audience',
        definitionLocator: defs.audience,
        value: 'Everyone',
        definition: { key: 'audience', label: 'Audience' },
      },
    ]);
    t.deepEqual(d.learningPaths.edges[0].node.customFieldValues, [
      { definitionKey: 'level', definitionLocator: defs.level, value: '2', definition: { key: 'level', label: 'Level' } },
    ]);
    // The locator is CustomFieldDefinition:<id> in base64, the form the production service's ids take.
    const id = await withTenant(
      f.ctx.rt.knex,
      f.tenant,
      async (db) => (await db('custom_field_definitions').where({ key: 'tagline' }).first('id')).id as number,
    );
    t.is(defs.tagline, toGlobalId('CustomFieldDefinition', id));
    // An event takes its template's values, with the same locators.
    const made = await f.data(
      f.admin,
      `mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { ${VALUES} } errors { message } } } }`,
      {
        input: {
          courseTemplateId: template,
          eventType: 'public',
          timeZoneName: 'Europe/London',
          locationId: location,
          taxTypeId: taxType,
          classroomStartDateTime: '2027-03-10T09:00',
        },
      },
    );
    t.deepEqual(made.event.createClassroom.errors, []);
    t.deepEqual(
      made.event.createClassroom.event.customFieldValues.map((v: { definitionKey: string; definitionLocator: string }) => [
        v.definitionKey,
        v.definitionLocator,
      ]),
      [
        ['tagline', defs.tagline],
        ['audience', defs.audience],
      ],
    );
  },
);

test.serial(
  'when a value input names its definition by the global id (as integrations do), then it is written as if named by key; an id of nothing is a FieldError',
  async (t) => {
    const UPDATE = `mutation ($id: ID!, $input: CourseTemplateUpdateInput!) { courseTemplate { update(courseTemplateId: $id, input: $input) {
    courseTemplate { customFieldValues { definitionKey value } } errors { label value message } } } }`;
    const d = await f.data(f.admin, UPDATE, {
      id: template,
      input: { customFieldValues: [{ definitionKey: defs.tagline, value: 'Be ready' }] },
    });
    t.deepEqual(d.courseTemplate.update.errors, []);
    t.deepEqual(d.courseTemplate.update.courseTemplate.customFieldValues, [
      { definitionKey: 'tagline', value: 'Be ready' },
      { definitionKey: 'audience', value: 'Everyone' },
    ]);
    // Named twice, once by key and once by locator: refused as given twice.
    const twice = await f.data(f.admin, UPDATE, {
      id: template,
      input: {
        customFieldValues: [
          { definitionKey: 'tagline', value: 'A' },
          { definitionKey: defs.tagline, value: 'B' },
        ],
      },
    });
    t.deepEqual(twice.courseTemplate.update.errors, [
      { label: 'customFieldValues[1].definitionKey', value: defs.tagline, message: 'This Custom Field is given twice' },
    ]);
    // A definition of another kind of record, or of nothing: refused, nothing written.
    for (const key of [defs.level, toGlobalId('CustomFieldDefinition', 99999)]) {
      const wrong = await f.data(f.admin, UPDATE, { id: template, input: { customFieldValues: [{ definitionKey: key, value: 'x' }] } });
      t.deepEqual(wrong.courseTemplate.update.errors, [
        {
          label: 'customFieldValues[0].definitionKey',
          value: key,
          message: 'Custom Field Definition does not exist or does not apply to this Course Template',
        },
      ]);
      t.is(wrong.courseTemplate.update.courseTemplate, null);
    }
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('course_template_field_values as v')
        .join('custom_field_definitions as d', 'd.id', 'v.definition_id')
        .orderBy('d.id')
        .select('d.key', 'v.value'),
    );
    t.deepEqual(stored, [
      { key: 'tagline', value: 'Be ready' },
      { key: 'audience', value: 'Everyone' },
    ]);
  },
);

test.serial(
  'when a definition is created and updated with a description, then it is stored, changed, cleared, and the rest of the definition stays',
  async (t) => {
    const SELECT = 'customFieldDefinition { key label description type appliesTo isTranslatable maxLength } errors { label value message }';
    const created = await f.data(
      f.admin,
      `mutation { customFieldDefinition { create(input: {key: "venue_code", label: "Venue code", description: "As on the booking system", type: TEXT, appliesTo: EVENT, maxLength: 12}) { ${SELECT} } } }`,
    );
    t.deepEqual(created.customFieldDefinition.create, {
      customFieldDefinition: {
        key: 'venue_code',
        label: 'Venue code',
        description: 'As on the booking system',
        type: 'TEXT',
        appliesTo: 'EVENT',
        isTranslatable: false,
        maxLength: 12,
      },
      errors: [],
    });
    const id = (
      await f.data(
        f.admin,
        '{ customFieldDefinitions(filters: [{field: key, operation: eq, value: "venue_code"}]) { edges { node { id } } } }',
      )
    ).customFieldDefinitions.edges[0].node.id;
    const update = (input: string) =>
      f.data(
        f.admin,
        `mutation ($id: ID!) { customFieldDefinition { update(customFieldDefinitionId: $id, input: {${input}}) { ${SELECT} } } }`,
        { id },
      );
    t.like((await update('description: "Four letters"')).customFieldDefinition.update.customFieldDefinition, {
      description: 'Four letters',
      label: 'Venue code',
      maxLength: 12,
    });
    t.like((await update('label: "Venue"')).customFieldDefinition.update.customFieldDefinition, {
      description: 'Four letters',
      label: 'Venue',
    });
    t.like((await update('description: null')).customFieldDefinition.update.customFieldDefinition, {
      description: null,
      label: 'Venue',
      maxLength: 12,
    });
    const tooLong = await update(`description: "${'x'.repeat(2001)}"`);
    t.deepEqual(
      tooLong.customFieldDefinition.update.errors.map((e: { label: string; message: string }) => [e.label, e.message]),
      [['description', 'must be at most 2000 characters']],
    );
    const events = (await f.data(f.admin, TEMPLATE, { type: 'Event' })).customFieldTemplate.customFieldDefinitions;
    t.deepEqual(
      events.map((e: { key: string; description: string | null }) => [e.key, e.description]),
      [
        ['room_notes', 'For the venue'],
        ['venue_code', null],
      ],
    );
  },
);
