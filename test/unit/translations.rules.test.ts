import test from 'ava';
import {
  LEARNING_PATH_TRANSLATIONS,
  learningPathColumns,
  primaryLocaleProblems,
} from '../../src/modules/learning-paths/learning-paths.rules.js';
import { COURSE_TEMPLATE_VALUES } from '../../src/modules/custom-fields/custom-fields.rules.js';
import { CATEGORY_TRANSLATIONS } from '../../src/modules/categories/categories.rules.js';
import {
  textProblem,
  translatedFields,
  translationColumns,
  translationTargetProblems,
  type TranslatableEntity,
} from '../../src/modules/translations/translations.rules.js';

/** The rules of translations (and of a learning path's own texts and primary locale), of every kind of record, categories included: pure, no database. */

const TEMPLATE: TranslatableEntity = {
  entityName: 'Course Template',
  idLabel: 'courseTemplateId',
  fields: {
    title: { column: 'title', richText: false, singleLine: true, maxLength: 255 },
    courseText1: { column: 'course_text1', richText: true, maxLength: 100000 },
  },
  values: COURSE_TEMPLATE_VALUES,
};
const ids = { ownerId: 'Q1Q6MQ==', localeId: 'TG9jYWxlOjI=' };

test("when the locale is the record's primary locale, then the translation is refused with the contract's message on localeId", (t) => {
  t.deepEqual(translationTargetProblems(TEMPLATE, ids, { owner: { id: 1, locale_id: 2 }, locale: { id: 2 } }), [
    { field: 'localeId', value: 'TG9jYWxlOjI=', message: "Cannot manage a translation in the Course Template's primary language" },
  ]);
});

test('when the record is missing, has no primary locale, or the locale is not supported, then the contract names each, in that order', (t) => {
  t.deepEqual(
    translationTargetProblems(TEMPLATE, ids, { owner: undefined, locale: undefined }).map((p) => [p.field, p.message]),
    [['courseTemplateId', 'Course Template not found']],
  );
  t.deepEqual(
    translationTargetProblems(TEMPLATE, ids, { owner: { id: 1, locale_id: null }, locale: undefined }).map((p) => [
      p.field,
      p.value,
      p.message,
    ]),
    [['courseTemplateId', 'Q1Q6MQ==', 'Course Template must have a primary language before translations can be managed']],
  );
  t.deepEqual(
    translationTargetProblems(TEMPLATE, ids, { owner: { id: 1, locale_id: 2 }, locale: undefined }).map((p) => p.message),
    ['Provided locale is not supported'],
  );
  t.deepEqual(translationTargetProblems(TEMPLATE, ids, { owner: { id: 1, locale_id: 2 }, locale: { id: 3 } }), []);
});

test('when a translation is written with fields left out or null, then every field is stored, the missing ones as null (replace, not patch)', (t) => {
  t.deepEqual(translationColumns(TEMPLATE, { title: 'Titre' }), { problems: [], columns: { title: 'Titre', course_text1: null } });
  t.deepEqual(translationColumns(TEMPLATE, { title: null, courseText1: null }).columns, { title: null, course_text1: null });
  t.deepEqual(translationColumns(TEMPLATE, {}).columns, { title: null, course_text1: null });
});

test("when a translated field is '', then it is kept as a deliberate blank, not turned into null", (t) => {
  t.deepEqual(translationColumns(TEMPLATE, { title: '', courseText1: '' }).columns, { title: '', course_text1: '' });
});

test('when a translated text is rich text, then it is sanitised; a single-line title is stored verbatim but refused with a line break', (t) => {
  const { columns } = translationColumns(TEMPLATE, { title: '<b>Titre</b>', courseText1: '<p>ok</p><script>x()</script>' });
  t.is(columns.title, '<b>Titre</b>');
  t.false(String(columns.course_text1).includes('<script>'));
  t.deepEqual(translationColumns(TEMPLATE, { title: 'one\ntwo' }).problems, [
    { field: 'title', value: 'one\ntwo', message: 'title must be a single line' },
  ]);
});

test('when a text is too long or holds NUL, then textProblem says why', (t) => {
  const field = { column: 'c', richText: false, maxLength: 3 };
  t.is(textProblem(field, 'abc'), null);
  t.is(textProblem(field, 'abcd'), 'must be at most 3 characters');
  t.is(textProblem(field, 'a\u0000'), 'must not contain NUL characters');
});

test('when a translation has null and blank fields, then translatedFields lists the ones not null (blank included)', (t) => {
  t.deepEqual(translatedFields(TEMPLATE, { title: '', course_text1: null }), ['title']);
  t.deepEqual(translatedFields(TEMPLATE, { title: null, course_text1: null }), []);
});

test('when a learning path is created without a name or with a blank one, then it is refused; its description may be cleared', (t) => {
  t.deepEqual(learningPathColumns({ description: 'd' }, 'create').problems, [{ field: 'name', value: null, message: 'name is required' }]);
  t.deepEqual(learningPathColumns({ name: '  ' }, 'create').problems, [{ field: 'name', value: '  ', message: 'name must not be empty' }]);
  t.deepEqual(learningPathColumns({ description: null }, 'update'), { problems: [], columns: { description: null } });
  t.is(LEARNING_PATH_TRANSLATIONS.fields.name.singleLine, true);
});

test("when a learning path's primary locale would be one of its translations' or be removed while it has some, then it is refused", (t) => {
  t.deepEqual(
    primaryLocaleProblems({ id: 4 }, [4]).map((p) => p.message),
    ['The Learning Path has a translation in this locale; delete it before making this the primary language'],
  );
  t.deepEqual(
    primaryLocaleProblems(null, [4]).map((p) => p.message),
    ['The Learning Path has translations; delete them before removing its primary language'],
  );
  t.deepEqual(
    primaryLocaleProblems(false, []).map((p) => p.message),
    ['Provided locale is not supported'],
  );
  t.deepEqual(primaryLocaleProblems({ id: 5 }, [4]), []);
  t.deepEqual(primaryLocaleProblems(null, []), []);
});

// Categories: a kind without primary locale and without custom field values.
const CATEGORY = CATEGORY_TRANSLATIONS;
const categoryIds = { ownerId: 'TGVhcm5pbmdDYXRlZ29yeTox', localeId: 'TG9jYWxlOjM=' };

test('when the category is missing, then the translation is refused on learningCategoryId before the locale is looked at', (t) => {
  t.deepEqual(translationTargetProblems(CATEGORY, categoryIds, { owner: undefined, locale: undefined }), [
    { field: 'learningCategoryId', value: 'TGVhcm5pbmdDYXRlZ29yeTox', message: 'Learning Category not found' },
  ]);
});

test('when the locale is not one the instance supports, then a category translation is refused on localeId', (t) => {
  t.deepEqual(translationTargetProblems(CATEGORY, categoryIds, { owner: { id: 1 }, locale: undefined }), [
    { field: 'localeId', value: 'TG9jYWxlOjM=', message: 'Provided locale is not supported' },
  ]);
});

test('when the category and a supported locale are found, then any locale may hold a translation (categories have no primary locale)', (t) => {
  t.deepEqual(translationTargetProblems(CATEGORY, categoryIds, { owner: { id: 1 }, locale: { id: 1 } }), []);
  t.deepEqual(translationTargetProblems(CATEGORY, categoryIds, { owner: { id: 1 }, locale: { id: 3 } }), []);
  // A kind with primary locales refuses the same record, which has none.
  t.deepEqual(
    translationTargetProblems(TEMPLATE, ids, { owner: { id: 1 }, locale: { id: 3 } }).map((p) => p.message),
    ['Course Template must have a primary language before translations can be managed'],
  );
});

test('when a category translation is written with fields left out or null, then both columns are stored, the missing ones as null (replace, not patch)', (t) => {
  t.deepEqual(translationColumns(CATEGORY, { name: 'Sécurité' }), { problems: [], columns: { name: 'Sécurité', introduction: null } });
  t.deepEqual(translationColumns(CATEGORY, { name: null, description: null }).columns, { name: null, introduction: null });
  t.deepEqual(translationColumns(CATEGORY, {}).columns, { name: null, introduction: null });
  t.deepEqual(translationColumns(CATEGORY, { description: 'Pour rester en sécurité' }).columns, {
    name: null,
    introduction: 'Pour rester en sécurité',
  });
});

test("when a category's translated field is '', then it is kept as a deliberate blank and counts as translated", (t) => {
  const { columns } = translationColumns(CATEGORY, { name: '', description: '' });
  t.deepEqual(columns, { name: '', introduction: '' });
  t.deepEqual(translatedFields(CATEGORY, columns), ['name', 'description']);
  t.deepEqual(translatedFields(CATEGORY, { name: 'Secourisme', introduction: null }), ['name']);
  t.deepEqual(translatedFields(CATEGORY, { name: null, introduction: null }), []);
});

test("when a category's name holds a line break, is longer than 255 characters or holds NUL, then it is refused on name with the value", (t) => {
  t.deepEqual(translationColumns(CATEGORY, { name: 'Deux\nlignes' }).problems, [
    { field: 'name', value: 'Deux\nlignes', message: 'name must be a single line' },
  ]);
  t.deepEqual(
    translationColumns(CATEGORY, { name: 'x'.repeat(256) }).problems.map((p) => p.message),
    ['name must be at most 255 characters'],
  );
  t.deepEqual(translationColumns(CATEGORY, { name: 'x'.repeat(255) }).problems, []);
  t.deepEqual(
    translationColumns(CATEGORY, { name: 'a\u0000b' }).problems.map((p) => p.message),
    ['name must not contain NUL characters'],
  );
});

test("when a category's description is several lines, then it is kept as given (as REST keeps an introduction); over 10,000 characters or with NUL it is refused", (t) => {
  const html = '<p>Un</p>\n<p onclick="x()">Deux</p>';
  t.deepEqual(translationColumns(CATEGORY, { description: html }), { problems: [], columns: { name: null, introduction: html } });
  t.deepEqual(
    translationColumns(CATEGORY, { description: 'x'.repeat(10001) }).problems.map((p) => [p.field, p.message]),
    [['description', 'description must be at most 10000 characters']],
  );
  t.deepEqual(
    translationColumns(CATEGORY, { description: 'a\u0000' }).problems.map((p) => p.message),
    ['description must not contain NUL characters'],
  );
  // Both fields' problems at once.
  t.deepEqual(
    translationColumns(CATEGORY, { name: 'a\nb', description: 'x'.repeat(10001) }).problems.map((p) => p.field),
    ['name', 'description'],
  );
});
