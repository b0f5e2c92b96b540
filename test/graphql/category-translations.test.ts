import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { insertCategories } from '../../src/modules/categories/categories.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Translations of categories through Core GraphQL: `learningCategory { upsertTranslation
 * deleteTranslation }` with real bearer tokens over real HTTP, the answers checked, then what
 * is stored. The rules are those of course template translations where they apply; categories
 * have no primary locale, so any supported locale may hold one.
 */
let f: GraphQLFixture;
let en: string;
let fr: string;
let de: string;
let es: string;
const ids: Record<string, number> = {};
const gid = (name: string) => toGlobalId('LearningCategory', ids[name]!);

test.serial.before(async () => {
  f = await graphqlFixture('gctr');
  en = await f.locale(f.tenant, 'en');
  fr = await f.locale(f.tenant, 'fr');
  de = await f.locale(f.tenant, 'de');
  es = toGlobalId('Locale', 6); // in the catalogue, not supported by this tenant
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const [safety, software, spare, gone] = await insertCategories(db, [
      { name: 'Safety', priority: 1, introduction: 'Staying safe at work' },
      { name: 'Software', priority: 2, introduction: 'Office tools' },
      { name: 'Spare', priority: 3 },
      { name: 'Gone', priority: 4 },
    ]);
    Object.assign(ids, { safety: safety!.id, software: software!.id, spare: spare!.id, gone: gone!.id });
  });
});
test.after.always(async () => f?.close());

const TRANSLATION = 'translation { id legacyId locale { code } name description translatedFields } errors { label value message }';
const upsert = (input: Record<string, unknown>, token = f.admin) =>
  f.gql(
    token,
    `mutation ($input: LearningCategoryTranslationUpsertInput!) { learningCategory { upsertTranslation(input: $input) { ${TRANSLATION} } } }`,
    { input },
  );
const upserted = async (input: Record<string, unknown>) => {
  const res = await upsert(input);
  if (res.status !== 200 || res.json.errors) throw new Error(res.text);
  return res.json.data.learningCategory.upsertTranslation;
};
const remove = (input: Record<string, unknown>, token = f.admin) =>
  f.gql(
    token,
    `mutation ($input: LearningCategoryTranslationDeleteInput!) { learningCategory { deleteTranslation(input: $input) { ${TRANSLATION} } } }`,
    { input },
  );
/** The stored translations of a category, by locale code. */
const stored = (categoryId: number) =>
  withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('category_translations as ct')
      .join('locales as l', 'l.id', 'ct.locale_id')
      .where('ct.category_id', categoryId)
      .orderBy('l.code')
      .select('ct.id', 'l.code', 'ct.name', 'ct.introduction'),
  );

test.serial('when a translation is upserted, then it answers the French name and description and stores them', async (t) => {
  const tr = await upserted({
    learningCategoryId: gid('safety'),
    localeId: fr,
    name: 'Sécurité',
    description: 'Rester en sécurité au travail',
  });
  t.deepEqual(tr.errors, []);
  t.like(tr.translation, {
    locale: { code: 'fr' },
    name: 'Sécurité',
    description: 'Rester en sécurité au travail',
    translatedFields: ['name', 'description'],
  });
  t.is(Buffer.from(tr.translation.id, 'base64').toString(), `LearningCategoryTranslation:${tr.translation.legacyId}`);
  t.deepEqual(await stored(ids.safety!), [
    { id: tr.translation.legacyId, code: 'fr', name: 'Sécurité', introduction: 'Rester en sécurité au travail' },
  ]);
  // The translation is a node, read back by its id.
  const node = await f.data(
    f.admin,
    'query ($id: ID!) { node(id: $id) { ... on LearningCategoryTranslation { name description locale { code } } } }',
    { id: tr.translation.id },
  );
  t.deepEqual(node.node, { name: 'Sécurité', description: 'Rester en sécurité au travail', locale: { code: 'fr' } });
  // The category itself is unchanged.
  const category = await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { ... on LearningCategory { name description } } }', {
    id: gid('safety'),
  });
  t.deepEqual(category.node, { name: 'Safety', description: 'Staying safe at work' });
});

test.serial('when a translation is upserted again, then it is replaced, not patched: the same one, omitted fields null', async (t) => {
  const first = await upserted({ learningCategoryId: gid('software'), localeId: fr, name: 'Logiciels', description: 'Outils de bureau' });
  const second = await upserted({ learningCategoryId: gid('software'), localeId: fr, name: 'Logiciels (2)' });
  t.deepEqual(second.errors, []);
  t.is(second.translation.id, first.translation.id, 'the same translation, replaced');
  t.like(second.translation, { name: 'Logiciels (2)', description: null, translatedFields: ['name'] });
  await upserted({ learningCategoryId: gid('software'), localeId: de, name: 'Software (de)' });
  const rows = await stored(ids.software!);
  t.deepEqual(
    rows.map(({ code, name, introduction }: Record<string, unknown>) => ({ code, name, introduction })),
    [
      { code: 'de', name: 'Software (de)', introduction: null },
      { code: 'fr', name: 'Logiciels (2)', introduction: null },
    ],
  );
  t.is(rows[1].id, first.translation.legacyId);
});

test.serial("when a field is '', then it is a deliberate blank; null means not translated", async (t) => {
  const tr = await upserted({ learningCategoryId: gid('spare'), localeId: fr, name: 'Divers', description: '' });
  t.like(tr.translation, { name: 'Divers', description: '', translatedFields: ['name', 'description'] });
  const nulls = await upserted({ learningCategoryId: gid('spare'), localeId: fr, name: null, description: null });
  t.like(nulls.translation, { name: null, description: null, translatedFields: [] });
  t.deepEqual(
    (await stored(ids.spare!)).map((r: { name: string | null; introduction: string | null }) => [r.name, r.introduction]),
    [[null, null]],
  );
});

test.serial(
  'when any supported locale is named, the default one included, then it holds a translation (categories have no primary locale)',
  async (t) => {
    const tr = await upserted({ learningCategoryId: gid('spare'), localeId: en, name: 'Miscellaneous' });
    t.deepEqual(tr.errors, []);
    t.like(tr.translation, { locale: { code: 'en' }, name: 'Miscellaneous' });
  },
);

test.serial('when a translation is deleted, then it is gone, and deleting it again is no error', async (t) => {
  await upserted({ learningCategoryId: gid('gone'), localeId: fr, name: 'Parti' });
  await upserted({ learningCategoryId: gid('gone'), localeId: de, name: 'Weg' });
  const res = await remove({ learningCategoryId: gid('gone'), localeId: fr });
  t.deepEqual(res.json.data.learningCategory.deleteTranslation, { translation: null, errors: [] });
  t.deepEqual(
    (await stored(ids.gone!)).map((r: { code: string }) => r.code),
    ['de'],
    'only the French one went',
  );
  const again = await remove({ learningCategoryId: gid('gone'), localeId: fr });
  t.deepEqual(again.json.data.learningCategory.deleteTranslation, { translation: null, errors: [] });
});

test.serial(
  'when a locale is not supported, then no translation is written in it; one written before its locale was disabled can still be deleted',
  async (t) => {
    const res = await upsert({ learningCategoryId: gid('safety'), localeId: es, name: 'Seguridad' });
    t.deepEqual(res.json.data.learningCategory.upsertTranslation, {
      translation: null,
      errors: [{ label: 'localeId', value: es, message: 'Provided locale is not supported' }],
    });
    const nonsense = await upsert({ learningCategoryId: gid('safety'), localeId: 'nope', name: 'x' });
    t.deepEqual(nonsense.json.data.learningCategory.upsertTranslation.errors, [
      { label: 'localeId', value: 'nope', message: 'Provided locale is not supported' },
    ]);
    t.deepEqual(
      (await stored(ids.safety!)).map((r: { code: string }) => r.code),
      ['fr'],
    );
    // German is disabled after a translation was written in it: the translation can be deleted.
    await upserted({ learningCategoryId: gid('safety'), localeId: de, name: 'Sicherheit' });
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('locales').where({ code: 'de' }).update({ supported: false }));
    try {
      const refused = await upsert({ learningCategoryId: gid('safety'), localeId: de, name: 'Sicherheit (2)' });
      t.deepEqual(
        refused.json.data.learningCategory.upsertTranslation.errors.map((e: { label: string }) => e.label),
        ['localeId'],
      );
      const del = await remove({ learningCategoryId: gid('safety'), localeId: de });
      t.deepEqual(del.json.data.learningCategory.deleteTranslation.errors, []);
      t.deepEqual(
        (await stored(ids.safety!)).map((r: { code: string }) => r.code),
        ['fr'],
      );
      const unknown = await remove({ learningCategoryId: gid('safety'), localeId: toGlobalId('Locale', 99999) });
      t.deepEqual(unknown.json.data.learningCategory.deleteTranslation.errors, [
        { label: 'localeId', value: toGlobalId('Locale', 99999), message: 'Provided locale is not supported' },
      ]);
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('locales').where({ code: 'de' }).update({ supported: true }));
    }
  },
);

test.serial('when the name is not one line of at most 255 characters, then nothing is written and the error names the field', async (t) => {
  const before = await stored(ids.safety!);
  const res = await upsert({ learningCategoryId: gid('safety'), localeId: fr, name: 'Deux\nlignes', description: 'x'.repeat(10001) });
  t.deepEqual(res.json.data.learningCategory.upsertTranslation, {
    translation: null,
    errors: [
      { label: 'name', value: 'Deux\nlignes', message: 'name must be a single line' },
      { label: 'description', value: 'x'.repeat(10001), message: 'description must be at most 10000 characters' },
    ],
  });
  const long = await upsert({ learningCategoryId: gid('safety'), localeId: fr, name: 'x'.repeat(256) });
  t.deepEqual(
    long.json.data.learningCategory.upsertTranslation.errors.map((e: { message: string }) => e.message),
    ['name must be at most 255 characters'],
  );
  t.deepEqual(await stored(ids.safety!), before);
});

test.serial(
  'when the category id is of nothing, of another type, or of another tenant\'s category, then "Learning Category not found" and nothing is written',
  async (t) => {
    const other = await f.ctx.freshTenant('gctrb');
    // Ids are per instance: their category 500000 has no namesake here.
    await f.ctx.rt.knex(`${other.schema}.categories`).insert({ id: 500000, name: 'Theirs', priority: 1 });
    const theirs = toGlobalId('LearningCategory', 500000);
    for (const id of [toGlobalId('LearningCategory', 999999), toGlobalId('CourseTemplate', ids.safety!), theirs, 'not-an-id']) {
      const res = await upsert({ learningCategoryId: id, localeId: fr, name: 'x' });
      t.deepEqual(
        res.json.data.learningCategory.upsertTranslation,
        { translation: null, errors: [{ label: 'learningCategoryId', value: id, message: 'Learning Category not found' }] },
        id,
      );
      const del = await remove({ learningCategoryId: id, localeId: fr });
      t.deepEqual(
        del.json.data.learningCategory.deleteTranslation.errors,
        [{ label: 'learningCategoryId', value: id, message: 'Learning Category not found' }],
        id,
      );
    }
    t.deepEqual(await f.ctx.rt.knex(`${other.schema}.category_translations`).select('id'), [], 'nothing of theirs was touched');
  },
);

test.serial('when the user lacks CATEGORY_EDIT, then the mutations are FORBIDDEN and nothing is written; with it, they work', async (t) => {
  const viewer = await f.tokenFor(f.tenant, 'viewer');
  for (const id of [gid('spare'), toGlobalId('LearningCategory', 999999)]) {
    const res = await upsert({ learningCategoryId: id, localeId: de, name: 'Verschiedenes' }, viewer);
    t.is(res.status, 200);
    t.is(res.json.data?.learningCategory?.upsertTranslation ?? null, null);
    t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
    t.regex(res.json.errors[0].message, /CATEGORY_EDIT/);
    const del = await remove({ learningCategoryId: id, localeId: fr }, viewer);
    t.is(del.json.errors[0].extensions.code, 'FORBIDDEN');
  }
  t.deepEqual(
    (await stored(ids.spare!)).map((r: { code: string }) => r.code),
    ['en', 'fr'],
  );
  const editor = await f.tokenFor(f.tenant, 'categories', ['CATEGORY_EDIT', 'LOCALE_VIEW']);
  const ok = await upsert({ learningCategoryId: gid('spare'), localeId: de, name: 'Verschiedenes' }, editor);
  t.deepEqual(ok.json.data.learningCategory.upsertTranslation.errors, []);
  t.is(ok.json.data.learningCategory.upsertTranslation.translation.name, 'Verschiedenes');
});

test.serial('when a category is deleted, then its translations go with it', async (t) => {
  const [temp] = await withTenant(f.ctx.rt.knex, f.tenant, (db) => insertCategories(db, [{ name: 'Temporary', priority: 9 }]));
  await upserted({ learningCategoryId: toGlobalId('LearningCategory', temp!.id), localeId: fr, name: 'Temporaire' });
  t.is((await stored(temp!.id)).length, 1);
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('categories').where({ id: temp!.id }).delete());
  t.deepEqual(await stored(temp!.id), []);
});
