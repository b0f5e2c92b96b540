import test from 'ava';
import { LEARNING_PATH_TRANSLATIONS, learningPathColumns, primaryLocaleProblems } from '../../src/modules/learning-paths/learning-paths.rules.js';
import { COURSE_TEMPLATE_VALUES } from '../../src/modules/custom-fields/custom-fields.rules.js';
import { textProblem, translatedFields, translationColumns, translationTargetProblems, type TranslatableEntity } from '../../src/modules/translations/translations.rules.js';

/** The rules of translations (and of a learning path's own texts and primary locale): pure, no database. */

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
  t.deepEqual(translationTargetProblems(TEMPLATE, ids, { owner: undefined, locale: undefined }).map((p) => [p.field, p.message]), [['courseTemplateId', 'Course Template not found']]);
  t.deepEqual(translationTargetProblems(TEMPLATE, ids, { owner: { id: 1, locale_id: null }, locale: undefined }).map((p) => [p.field, p.value, p.message]), [
    ['courseTemplateId', 'Q1Q6MQ==', 'Course Template must have a primary language before translations can be managed'],
  ]);
  t.deepEqual(translationTargetProblems(TEMPLATE, ids, { owner: { id: 1, locale_id: 2 }, locale: undefined }).map((p) => p.message), ['Provided locale is not supported']);
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
  t.deepEqual(translationColumns(TEMPLATE, { title: 'one\ntwo' }).problems, [{ field: 'title', value: 'one\ntwo', message: 'title must be a single line' }]);
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
  t.deepEqual(primaryLocaleProblems({ id: 4 }, [4]).map((p) => p.message), ['The Learning Path has a translation in this locale; delete it before making this the primary language']);
  t.deepEqual(primaryLocaleProblems(null, [4]).map((p) => p.message), ['The Learning Path has translations; delete them before removing its primary language']);
  t.deepEqual(primaryLocaleProblems(false, []).map((p) => p.message), ['Provided locale is not supported']);
  t.deepEqual(primaryLocaleProblems({ id: 5 }, [4]), []);
  t.deepEqual(primaryLocaleProblems(null, []), []);
});
