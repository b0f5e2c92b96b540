import test from 'ava';
import { courseTemplateProblems, templateLocales } from '../../src/modules/course-templates/course-templates.rules.js';

/** The rules of course templates, which the REST event templates and the GraphQL mutations share: pure, no database. */

test('when a course template title holds a line break, then it is refused on create and on update', (t) => {
  for (const mode of ['create', 'update'] as const) {
    t.deepEqual(courseTemplateProblems({ title: 'Fire\nSafety' }, mode), [
      { field: 'title', value: 'Fire\nSafety', message: 'title must be a single line' },
    ]);
  }
});

test('when a title is blank or null, then it must not be empty; when a new template has none, then it is required', (t) => {
  t.deepEqual(
    courseTemplateProblems({ title: '   ' }, 'update').map((p) => p.message),
    ['title must not be empty'],
  );
  t.deepEqual(
    courseTemplateProblems({ title: null }, 'update').map((p) => p.message),
    ['title must not be empty'],
  );
  t.deepEqual(
    courseTemplateProblems({}, 'create').map((p) => p.message),
    ['title is required'],
  );
  t.deepEqual(courseTemplateProblems({}, 'update'), []);
});

test('when the code is over 64 characters or the lifecycle state unknown, then each is refused', (t) => {
  t.deepEqual(
    courseTemplateProblems({ title: 'T', code: 'x'.repeat(65), lifecycleState: 'archived' }, 'create').map((p) => p.message),
    ['code must be one line of at most 64 characters', 'lifecycleState must be one of draft, published, cancelled'],
  );
  t.deepEqual(
    courseTemplateProblems({ title: 'T', code: 'x'.repeat(64), lifecycleState: 'published', courseText1: '<p>a\nb</p>' }, 'create'),
    [],
  );
});

test('when a course text is longer than its limit, then it is named', (t) => {
  t.deepEqual(
    courseTemplateProblems({ lmsSummary: 'x'.repeat(100001) }, 'update').map((p) => p.message),
    ['lmsSummary must be at most 100000 characters'],
  );
});

const none = { locale_id: null, default_delivery_locale_id: null, delivery: [], translated: [] };

test('when the default delivery locale is not among the delivery locales, then it is refused', (t) => {
  t.deepEqual(templateLocales({ deliveryLocales: [{ id: 1 }], defaultDeliveryLocale: { id: 2 } }, none).problems, [
    { field: 'defaultDeliveryLocaleId', value: 2, message: 'Default delivery locale must be one of the delivery locales' },
  ]);
  t.deepEqual(templateLocales({ deliveryLocales: [{ id: 1 }, { id: 2 }, { id: 1 }], defaultDeliveryLocale: { id: 2 } }, none), {
    columns: { default_delivery_locale_id: 2 },
    delivery: [1, 2],
    problems: [],
  });
});

test('when the delivery locales are emptied and no default is given, then the default goes too', (t) => {
  const existing = { locale_id: 1, default_delivery_locale_id: 2, delivery: [2], translated: [] };
  t.deepEqual(templateLocales({ deliveryLocales: [] }, existing), {
    columns: { default_delivery_locale_id: null },
    delivery: [],
    problems: [],
  });
});

test('when the primary locale would become one the template is translated in, or go while it has translations, then it is refused', (t) => {
  const existing = { locale_id: 1, default_delivery_locale_id: null, delivery: [], translated: [3] };
  t.deepEqual(
    templateLocales({ locale: { id: 3 } }, existing).problems.map((p) => p.field),
    ['localeId'],
  );
  t.deepEqual(
    templateLocales({ locale: null }, existing).problems.map((p) => p.message),
    ['The Course Template has translations; delete them before removing its primary language'],
  );
});
