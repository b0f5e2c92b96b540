import test from 'ava';
import { categoryTranslatedFields, categoryTranslationColumns, categoryTranslationTargetProblems } from '../../src/modules/categories/category-translations.rules.js';

/** The rules of category translations: pure, no database. */

const ids = { categoryId: 'TGVhcm5pbmdDYXRlZ29yeTox', localeId: 'TG9jYWxlOjM=' };

test('when the category is missing, then the translation is refused on learningCategoryId before the locale is looked at', (t) => {
  t.deepEqual(categoryTranslationTargetProblems(ids, { category: undefined, locale: undefined }), [
    { field: 'learningCategoryId', value: 'TGVhcm5pbmdDYXRlZ29yeTox', message: 'Learning Category not found' },
  ]);
});

test('when the locale is not one the instance supports, then the translation is refused on localeId', (t) => {
  t.deepEqual(categoryTranslationTargetProblems(ids, { category: { id: 1 }, locale: undefined }), [{ field: 'localeId', value: 'TG9jYWxlOjM=', message: 'Provided locale is not supported' }]);
});

test('when the category and a supported locale are found, then any locale may hold a translation (categories have no primary locale)', (t) => {
  t.deepEqual(categoryTranslationTargetProblems(ids, { category: { id: 1 }, locale: { id: 1 } }), []);
  t.deepEqual(categoryTranslationTargetProblems(ids, { category: { id: 1 }, locale: { id: 3 } }), []);
});

test('when a translation is written with fields left out or null, then both columns are stored, the missing ones as null (replace, not patch)', (t) => {
  t.deepEqual(categoryTranslationColumns({ name: 'Sécurité' }), { problems: [], columns: { name: 'Sécurité', introduction: null } });
  t.deepEqual(categoryTranslationColumns({ name: null, description: null }).columns, { name: null, introduction: null });
  t.deepEqual(categoryTranslationColumns({}).columns, { name: null, introduction: null });
  t.deepEqual(categoryTranslationColumns({ description: 'Pour rester en sécurité' }).columns, { name: null, introduction: 'Pour rester en sécurité' });
});

test("when a translated field is '', then it is kept as a deliberate blank and counts as translated", (t) => {
  const { columns } = categoryTranslationColumns({ name: '', description: '' });
  t.deepEqual(columns, { name: '', introduction: '' });
  t.deepEqual(categoryTranslatedFields(columns), ['name', 'description']);
  t.deepEqual(categoryTranslatedFields({ name: 'Secourisme', introduction: null }), ['name']);
  t.deepEqual(categoryTranslatedFields({ name: null, introduction: null }), []);
});

test('when the name holds a line break, is longer than 255 characters or holds NUL, then it is refused on name with the value', (t) => {
  t.deepEqual(categoryTranslationColumns({ name: 'Deux\nlignes' }).problems, [{ field: 'name', value: 'Deux\nlignes', message: 'name must be a single line' }]);
  t.deepEqual(categoryTranslationColumns({ name: 'x'.repeat(256) }).problems.map((p) => p.message), ['name must be at most 255 characters']);
  t.deepEqual(categoryTranslationColumns({ name: 'x'.repeat(255) }).problems, []);
  t.deepEqual(categoryTranslationColumns({ name: 'a\u0000b' }).problems.map((p) => p.message), ['name must not contain NUL characters']);
});

test('when the description is several lines, then it is kept as given (as REST keeps an introduction); over 10,000 characters or with NUL it is refused', (t) => {
  const html = '<p>Un</p>\n<p onclick="x()">Deux</p>';
  t.deepEqual(categoryTranslationColumns({ description: html }), { problems: [], columns: { name: null, introduction: html } });
  t.deepEqual(categoryTranslationColumns({ description: 'x'.repeat(10001) }).problems.map((p) => [p.field, p.message]), [['description', 'description must be at most 10000 characters']]);
  t.deepEqual(categoryTranslationColumns({ description: 'a\u0000' }).problems.map((p) => p.message), ['description must not contain NUL characters']);
  // Both fields' problems at once.
  t.deepEqual(categoryTranslationColumns({ name: 'a\nb', description: 'x'.repeat(10001) }).problems.map((p) => p.field), ['name', 'description']);
});
