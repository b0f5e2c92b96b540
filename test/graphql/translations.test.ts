import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Every translation rule and message of the contract (service-api.md, "Rules for GraphQL
 * translation operations" and "GraphQL validation errors"), through real HTTP with real bearer
 * tokens.
 */
let f: GraphQLFixture;
let en: string;
let fr: string;
let de: string;
let es: string;

test.serial.before(async () => {
  f = await graphqlFixture('gtr');
  en = await f.locale(f.tenant, 'en');
  fr = await f.locale(f.tenant, 'fr');
  de = await f.locale(f.tenant, 'de');
  es = toGlobalId('Locale', 6); // in the catalogue, not supported by this tenant
});
test.after.always(async () => f?.close());

const TEMPLATE = `id title courseText1 courseText2 relatedCoursesText lmsSummary lifecycleState
  locale { id code } deliveryLocales { id code } defaultDeliveryLocale { id code }
  customFieldValues { definitionKey value definition { key label } }
  translations { id locale { code } title courseText1 courseText2 relatedCoursesText lmsSummary translatedFields customFieldValues { definitionKey value } }`;

const createTemplate = async (input: Record<string, unknown>) => {
  const d = await f.data(
    f.admin,
    `mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { ${TEMPLATE} } errors { label value message } } } }`,
    { input },
  );
  return d.courseTemplate.create;
};
const updateTemplate = async (id: string, input: Record<string, unknown>) =>
  (
    await f.data(
      f.admin,
      `mutation ($id: ID!, $input: CourseTemplateUpdateInput!) { courseTemplate { update(courseTemplateId: $id, input: $input) { courseTemplate { ${TEMPLATE} } errors { label value message } } } }`,
      { id, input },
    )
  ).courseTemplate.update;
const upsert = async (input: Record<string, unknown>, token = f.admin) =>
  f.gql(
    token,
    `mutation ($input: CourseTemplateTranslationUpsertInput!) { courseTemplate { upsertTranslation(input: $input) { translation { id locale { code } title courseText1 courseText2 relatedCoursesText lmsSummary translatedFields customFieldValues { definitionKey value } } errors { label value message } } } }`,
    { input },
  );
const upserted = async (input: Record<string, unknown>) => {
  const res = await upsert(input);
  if (res.json.errors) throw new Error(res.text);
  return res.json.data.courseTemplate.upsertTranslation;
};
const remove = async (input: Record<string, unknown>, token = f.admin) =>
  f.gql(
    token,
    `mutation ($input: CourseTemplateTranslationDeleteInput!) { courseTemplate { deleteTranslation(input: $input) { translation { id } errors { label value message } } } }`,
    { input },
  );
const read = async (id: string, locale?: string) =>
  (
    await f.data(
      f.admin,
      `query ($id: ID!, $locale: ID) { node(id: $id) { ... on CourseTemplate { ${TEMPLATE.replace('translations {', 'translations(locale: $locale) {')} } } }`,
      { id, locale },
    )
  ).node;
const defineField = async (input: Record<string, unknown>) => {
  const d = await f.data(
    f.admin,
    `mutation ($input: CustomFieldDefinitionInput!) { customFieldDefinition { create(input: $input) { customFieldDefinition { key isTranslatable } errors { label message } } } }`,
    { input },
  );
  if (d.customFieldDefinition.create.errors.length) throw new Error(JSON.stringify(d.customFieldDefinition.create.errors));
  return d.customFieldDefinition.create.customFieldDefinition.key as string;
};

test.serial(
  'rule 1: localeId, deliveryLocaleIds and defaultDeliveryLocaleId are optional, and the default must be one of the delivery locales',
  async (t) => {
    const bare = await createTemplate({ title: 'No locales at all' });
    t.deepEqual(bare.errors, []);
    t.is(bare.courseTemplate.locale, null);
    t.deepEqual(bare.courseTemplate.deliveryLocales, []);
    const full = await createTemplate({ title: 'Fire Safety', localeId: en, deliveryLocaleIds: [en, fr], defaultDeliveryLocaleId: fr });
    t.deepEqual(full.errors, []);
    t.is(full.courseTemplate.locale.code, 'en');
    t.deepEqual(
      full.courseTemplate.deliveryLocales.map((l: { code: string }) => l.code),
      ['en', 'fr'],
    );
    t.is(full.courseTemplate.defaultDeliveryLocale.code, 'fr');
    const outside = await createTemplate({ title: 'Bad default', deliveryLocaleIds: [en], defaultDeliveryLocaleId: fr });
    t.is(outside.courseTemplate, null);
    t.deepEqual(outside.errors, [
      { label: 'defaultDeliveryLocaleId', value: fr, message: 'Default delivery locale must be one of the delivery locales' },
    ]);
    // On update too, and with nothing written.
    const moved = await updateTemplate(full.courseTemplate.id, { deliveryLocaleIds: [en] });
    t.deepEqual(
      moved.errors.map((e: { label: string }) => e.label),
      ['defaultDeliveryLocaleId'],
    );
    t.is((await read(full.courseTemplate.id)).deliveryLocales.length, 2);
    const unsupported = await createTemplate({ title: 'Spanish', localeId: es });
    t.deepEqual(unsupported.errors, [{ label: 'localeId', value: es, message: 'Provided locale is not supported' }]);
  },
);

test.serial(
  'rule 2 and 3: translations has one entry per locale; upsert replaces, never patches (omitted fields become null and fall back)',
  async (t) => {
    const { courseTemplate: ct } = await createTemplate({
      title: 'Working at Height',
      courseText1: '<p>Base one</p>',
      courseText2: '<p>Base two</p>',
      localeId: en,
    });
    const first = await upserted({
      courseTemplateId: ct.id,
      localeId: fr,
      title: 'Travail en hauteur',
      courseText1: '<p>Un</p>',
      courseText2: '<p>Deux</p>',
    });
    t.deepEqual(first.errors, []);
    t.deepEqual(first.translation.translatedFields, ['title', 'courseText1', 'courseText2']);
    await upserted({ courseTemplateId: ct.id, localeId: de, title: 'Arbeiten in der Höhe' });
    const both = await read(ct.id);
    t.deepEqual(both.translations.map((tr: { locale: { code: string } }) => tr.locale.code).sort(), ['de', 'fr']);
    // Replace: only the title this time; the texts sent before are gone (null), not kept.
    const second = await upserted({ courseTemplateId: ct.id, localeId: fr, title: 'Travail en hauteur (2)' });
    t.is(second.translation.id, first.translation.id, 'the same translation, replaced');
    t.is(second.translation.courseText1, null);
    t.is(second.translation.courseText2, null);
    t.deepEqual(second.translation.translatedFields, ['title']);
    // translations(locale:): that locale's overlay, or an empty list.
    t.deepEqual(
      (await read(ct.id, fr)).translations.map((tr: { title: string }) => tr.title),
      ['Travail en hauteur (2)'],
    );
    t.deepEqual((await read(ct.id, toGlobalId('Locale', 7))).translations, []);
  },
);

test.serial('null means not translated, an empty string a deliberate blank', async (t) => {
  const { courseTemplate: ct } = await createTemplate({ title: 'Manual Handling', courseText1: '<p>Lift safely</p>', localeId: en });
  const tr = await upserted({ courseTemplateId: ct.id, localeId: fr, title: 'Manutention', courseText1: '', courseText2: null });
  t.is(tr.translation.courseText1, '');
  t.is(tr.translation.courseText2, null);
  t.deepEqual(tr.translation.translatedFields, ['title', 'courseText1'], 'the blank counts as translated; null does not');
});

test.serial('rule 4: rich text is sanitised on write, the title is not', async (t) => {
  const { courseTemplate: ct } = await createTemplate({
    title: 'Security <Basics>',
    courseText1: '<p onclick="steal()">Base<script>alert(1)</script></p>',
    localeId: en,
  });
  t.is(ct.title, 'Security <Basics>');
  t.is(ct.courseText1, '<p>Base</p>', 'the base write path sanitises too');
  const tr = await upserted({
    courseTemplateId: ct.id,
    localeId: fr,
    title: 'Sécurité <de base> & plus',
    courseText1: '<p>Texte <a href="javascript:alert(1)">lien</a><img src=x onerror=alert(1)></p>',
    relatedCoursesText: '<ul><li>Un</li></ul><iframe src="https://evil.example"></iframe>',
    lmsSummary: '<strong>Résumé</strong><style>body{}</style>',
  });
  t.is(tr.translation.title, 'Sécurité <de base> & plus');
  t.is(tr.translation.courseText1, '<p>Texte <a rel="noopener noreferrer">lien</a></p>');
  t.is(tr.translation.relatedCoursesText, '<ul><li>Un</li></ul>');
  t.is(tr.translation.lmsSummary, '<strong>Résumé</strong>');
});

test.serial(
  'the primary locale is never a translation: "Cannot manage a translation in the Course Template\'s primary language"',
  async (t) => {
    const { courseTemplate: ct } = await createTemplate({ title: 'First Aid', localeId: en });
    const res = await upsert({ courseTemplateId: ct.id, localeId: en, title: 'First Aid (en)' });
    t.deepEqual(res.json.data.courseTemplate.upsertTranslation, {
      translation: null,
      errors: [{ label: 'localeId', value: en, message: "Cannot manage a translation in the Course Template's primary language" }],
    });
    t.deepEqual((await read(ct.id)).translations, []);
    // And a template cannot take as primary a locale it has a translation in.
    await upserted({ courseTemplateId: ct.id, localeId: fr, title: 'Premiers secours' });
    const clash = await updateTemplate(ct.id, { localeId: fr });
    t.deepEqual(
      clash.errors.map((e: { label: string }) => e.label),
      ['localeId'],
    );
  },
);

test.serial('"Course Template not found" for an id of nothing, of another type, or of another tenant\'s template', async (t) => {
  const other = await f.ctx.freshTenant('gtrb');
  const otherToken = await f.tokenFor(other, 'admin');
  // Ids are per instance: their template 500000 has no namesake here.
  await f.ctx.rt.knex(`${other.schema}.course_templates`).insert({ id: 500000, title: 'Theirs', locale_id: 1 });
  const theirs = toGlobalId('CourseTemplate', 500000);
  for (const id of [toGlobalId('CourseTemplate', 999999), toGlobalId('LearningPath', 1), theirs, 'not-an-id']) {
    const res = await upsert({ courseTemplateId: id, localeId: fr, title: 'x' });
    t.deepEqual(
      res.json.data.courseTemplate.upsertTranslation.errors,
      [{ label: 'courseTemplateId', value: id, message: 'Course Template not found' }],
      id,
    );
  }
  // Nothing of theirs was touched: still no translation there.
  const mine = await f.data(otherToken, `query ($id: ID!) { node(id: $id) { ... on CourseTemplate { translations { id } } } }`, {
    id: theirs,
  });
  t.deepEqual(mine.node.translations, []);
});

test.serial('"Course Template must have a primary language before translations can be managed"', async (t) => {
  const { courseTemplate: ct } = await createTemplate({ title: 'No language yet' });
  const res = await upsert({ courseTemplateId: ct.id, localeId: fr, title: 'Pas encore' });
  t.deepEqual(res.json.data.courseTemplate.upsertTranslation.errors, [
    { label: 'courseTemplateId', value: ct.id, message: 'Course Template must have a primary language before translations can be managed' },
  ]);
  const del = await remove({ courseTemplateId: ct.id, localeId: fr });
  t.is(
    del.json.data.courseTemplate.deleteTranslation.errors[0].message,
    'Course Template must have a primary language before translations can be managed',
  );
});

test.serial('a locale the instance does not support cannot hold a translation', async (t) => {
  const { courseTemplate: ct } = await createTemplate({ title: 'Locales', localeId: en });
  const res = await upsert({ courseTemplateId: ct.id, localeId: es, title: 'Español' });
  t.deepEqual(res.json.data.courseTemplate.upsertTranslation.errors, [
    { label: 'localeId', value: es, message: 'Provided locale is not supported' },
  ]);
});

test.serial(
  "custom fields: the contract's three messages word for word, and untranslatable, non-text or invalid values refused",
  async (t) => {
    const tagline = await defineField({
      key: 'tagline',
      label: 'Tagline',
      type: 'TEXT',
      appliesTo: 'COURSE_TEMPLATE',
      isTranslatable: true,
      maxLength: 40,
    });
    const internal = await defineField({ key: 'internal_note', label: 'Internal note', type: 'TEXT', appliesTo: 'COURSE_TEMPLATE' });
    const hours = await defineField({ key: 'hours', label: 'Hours', type: 'NUMBER', appliesTo: 'COURSE_TEMPLATE', isTranslatable: true });
    const pathOnly = await defineField({
      key: 'path_motto',
      label: 'Path motto',
      type: 'TEXT',
      appliesTo: 'LEARNING_PATH',
      isTranslatable: true,
    });
    const empty = await defineField({
      key: 'subtitle',
      label: 'Subtitle',
      type: 'TEXTAREA',
      appliesTo: 'COURSE_TEMPLATE',
      isTranslatable: true,
    });
    const { courseTemplate: ct, errors } = await createTemplate({
      title: 'Custom fields',
      localeId: en,
      customFieldValues: [
        { definitionKey: tagline, value: 'Stay safe' },
        { definitionKey: internal, value: 'Check room' },
        { definitionKey: hours, value: '7' },
      ],
    });
    t.deepEqual(errors, []);
    t.deepEqual(
      ct.customFieldValues.map((v: { definitionKey: string; value: string }) => [v.definitionKey, v.value]),
      [
        [tagline, 'Stay safe'],
        [internal, 'Check room'],
        [hours, '7'],
      ],
    );
    const attempt = (definitionKey: string, value = 'x') =>
      upsert({ courseTemplateId: ct.id, localeId: fr, title: 'Champs', customFieldValues: [{ definitionKey, value }] });
    const message = async (key: string, value?: string) =>
      (await attempt(key, value)).json.data.courseTemplate.upsertTranslation.errors.map((e: { message: string }) => e.message);
    t.deepEqual(await message('no_such_field'), ['Custom Field Definition does not exist or does not apply to this Course Template']);
    t.deepEqual(await message(pathOnly), ['Custom Field Definition does not exist or does not apply to this Course Template']);
    t.deepEqual(await message(empty), ['Custom Field has no base value on the Course Template to translate']);
    t.deepEqual(await message('course_text_1'), [
      'This Custom Field is a built-in course description field; translate it with the courseText fields on this mutation, not customFieldValues',
    ]);
    t.deepEqual(await message(internal), ['This Custom Field is not translatable']);
    t.deepEqual(await message(hours, '8'), ['Only text custom fields can be translated']);
    t.deepEqual(await message(tagline, 'x'.repeat(41)), ['Value must be at most 40 characters']);
    // Nothing was written by any of those.
    t.deepEqual((await read(ct.id)).translations, []);
    const ok = await upserted({
      courseTemplateId: ct.id,
      localeId: fr,
      title: 'Champs',
      customFieldValues: [{ definitionKey: tagline, value: 'Restez prudent' }],
    });
    t.deepEqual(ok.errors, []);
    t.deepEqual(
      ok.translation.customFieldValues.map((v: { definitionKey: string; value: string }) => [v.definitionKey, v.value]),
      [
        [tagline, 'Restez prudent'],
        [internal, 'Check room'],
        [hours, '7'],
      ],
      'the merged shape: the translation where there is one, else the base',
    );
  },
);

test.serial("rule 5: deleteTranslation is hard and takes the locale's custom field values with it", async (t) => {
  const key = await defineField({ key: 'strapline', label: 'Strapline', type: 'TEXT', appliesTo: 'COURSE_TEMPLATE', isTranslatable: true });
  const { courseTemplate: ct } = await createTemplate({
    title: 'To delete',
    localeId: en,
    customFieldValues: [{ definitionKey: key, value: 'Base' }],
  });
  await upserted({
    courseTemplateId: ct.id,
    localeId: fr,
    title: 'À supprimer',
    customFieldValues: [{ definitionKey: key, value: 'Français' }],
  });
  await upserted({
    courseTemplateId: ct.id,
    localeId: de,
    title: 'Zu löschen',
    customFieldValues: [{ definitionKey: key, value: 'Deutsch' }],
  });
  const res = await remove({ courseTemplateId: ct.id, localeId: fr });
  t.deepEqual(res.json.data.courseTemplate.deleteTranslation, { translation: null, errors: [] });
  const after = await read(ct.id);
  t.deepEqual(
    after.translations.map((tr: { locale: { code: string } }) => tr.locale.code),
    ['de'],
  );
  const stored = await f.ctx.rt
    .knex(`${f.tenant.schema}.course_template_field_values`)
    .where({ course_template_id: Number(Buffer.from(ct.id, 'base64').toString().split(':')[1]) })
    .orderBy('id');
  t.deepEqual(
    stored.map((v: { value: string }) => v.value),
    ['Base', 'Deutsch'],
    'the French value is gone, the German one stays',
  );
  t.is(
    (
      await f.ctx.rt
        .knex(`${f.tenant.schema}.course_template_translations`)
        .where({ id: Number(Buffer.from(after.translations[0].id, 'base64').toString().split(':')[1]) })
    ).length,
    1,
  );
});

test.serial(
  'the permission is checked first: without it, a permission error, never a validation error that tells whether the template exists',
  async (t) => {
    const viewer = await f.tokenFor(f.tenant, 'viewer');
    const { courseTemplate: ct } = await createTemplate({ title: 'Protected', localeId: en });
    for (const id of [ct.id, toGlobalId('CourseTemplate', 999999)]) {
      const res = await upsert({ courseTemplateId: id, localeId: fr, title: 'x' }, viewer);
      t.is(res.status, 200);
      t.is(res.json.data?.courseTemplate?.upsertTranslation ?? null, null);
      t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
      t.regex(res.json.errors[0].message, /COURSE_TEMPLATE_EDIT/);
      const del = await remove({ courseTemplateId: id, localeId: fr }, viewer);
      t.is(del.json.errors[0].extensions.code, 'FORBIDDEN');
    }
    // Reading translations needs COURSE_TEMPLATE_VIEW: a role with only learning paths gets none.
    const pathsOnly = await f.tokenFor(f.tenant, 'paths', ['LEARNING_PATH_VIEW']);
    const res = await f.gql(pathsOnly, `{ courseTemplates { edges { node { translations { id } } } } }`);
    t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
    t.regex(res.json.errors[0].message, /COURSE_TEMPLATE_VIEW/);
  },
);

test.serial('learning paths: the same rules under learningPaths, stored verbatim (not sanitised)', async (t) => {
  const created = (
    await f.data(
      f.admin,
      `mutation ($input: LearningPathCreateInput!) { learningPaths { create(input: $input) { learningPath { id name locale { code } } errors { label message } } } }`,
      {
        input: { name: 'Leadership path', description: 'Three <em>courses</em>', localeId: en },
      },
    )
  ).learningPaths.create;
  t.deepEqual(created.errors, []);
  const id = created.learningPath.id;
  const up = (input: Record<string, unknown>) =>
    f.data(
      f.admin,
      `mutation ($input: LearningPathTranslationUpsertInput!) { learningPaths { upsertTranslation(input: $input) { translation { name description translatedFields locale { code } } errors { label value message } } } }`,
      { input },
    );
  const tr = (
    await up({ learningPathId: id, localeId: fr, name: 'Parcours <b>leadership</b>', description: '<script>x</script> trois cours' })
  ).learningPaths.upsertTranslation;
  t.deepEqual(tr.errors, []);
  t.is(tr.translation.name, 'Parcours <b>leadership</b>');
  t.is(tr.translation.description, '<script>x</script> trois cours', 'learning path translations are stored as given');
  const replaced = (await up({ learningPathId: id, localeId: fr, name: 'Parcours' })).learningPaths.upsertTranslation;
  t.is(replaced.translation.description, null);
  t.deepEqual(replaced.translation.translatedFields, ['name']);
  const primary = (await up({ learningPathId: id, localeId: en, name: 'x' })).learningPaths.upsertTranslation;
  t.deepEqual(primary.errors, [
    { label: 'localeId', value: en, message: "Cannot manage a translation in the Learning Path's primary language" },
  ]);
  const missing = (await up({ learningPathId: toGlobalId('LearningPath', 999999), localeId: fr, name: 'x' })).learningPaths
    .upsertTranslation;
  t.is(missing.errors[0].message, 'Learning Path not found');
  const del = (
    await f.data(
      f.admin,
      `mutation ($input: LearningPathTranslationDeleteInput!) { learningPaths { deleteTranslation(input: $input) { translation { name } errors { message } } } }`,
      { input: { learningPathId: id, localeId: fr } },
    )
  ).learningPaths.deleteTranslation;
  t.deepEqual(del, { translation: null, errors: [] });
  const read2 = (await f.data(f.admin, `query ($id: ID!) { node(id: $id) { ... on LearningPath { translations { id } } } }`, { id })).node;
  t.deepEqual(read2.translations, []);
  const viewer = await f.tokenFor(f.tenant, 'viewer');
  const denied = await f.gql(
    viewer,
    `mutation { learningPaths { upsertTranslation(input: {learningPathId: "${id}", localeId: "${fr}", name: "x"}) { errors { message } } } }`,
  );
  t.is(denied.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(denied.json.errors[0].message, /LEARNING_PATH_EDIT/);
});
