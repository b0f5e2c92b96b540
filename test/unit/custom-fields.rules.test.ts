import test from 'ava';
import {
  checkBaseValues,
  checkTranslatedValues,
  COURSE_TEMPLATE_VALUES,
  changedDefinition,
  invalidFor,
  LEARNING_PATH_VALUES,
  newDefinition,
  shownValues,
  storedValue,
  translatabilityProblems,
  type FieldDefinition,
} from '../../src/modules/custom-fields/custom-fields.rules.js';

/** The rules of custom field values and definitions: pure, no database. */

const def = (over: Partial<FieldDefinition> = {}): FieldDefinition => ({
  id: 10,
  key: 'audience',
  label: 'Audience',
  type: 'text',
  applies_to: 'course_template',
  is_translatable: true,
  is_builtin: false,
  max_length: null,
  pattern: null,
  ...over,
});

test('when a value fits its type, then it is valid; when it does not, then the reason names the type', (t) => {
  t.is(invalidFor(def({ type: 'number' }), '12.5'), null);
  t.is(invalidFor(def({ type: 'number' }), 'twelve'), 'must be a number such as 12 or 3.5');
  t.is(invalidFor(def({ type: 'date' }), '2026-02-28'), null);
  t.is(invalidFor(def({ type: 'date' }), '2026-02-30'), 'must be a date (YYYY-MM-DD)');
  t.is(invalidFor(def({ type: 'boolean' }), 'true'), null);
  t.is(invalidFor(def({ type: 'boolean' }), 'yes'), "must be 'true' or 'false'");
  t.is(invalidFor(def({ type: 'text' }), 'one\ntwo'), 'must be a single line');
  t.is(invalidFor(def({ type: 'textarea' }), 'one\ntwo'), null);
  t.is(invalidFor(def(), 'a\u0000b'), 'must not contain NUL characters');
});

test("when a value is longer than the definition's maxLength (or the type's default), then it is refused with the limit", (t) => {
  t.is(invalidFor(def({ max_length: 5 }), 'abcde'), null);
  t.is(invalidFor(def({ max_length: 5 }), 'abcdef'), 'must be at most 5 characters');
  t.is(invalidFor(def(), 'x'.repeat(255)), null);
  t.is(invalidFor(def(), 'x'.repeat(256)), 'must be at most 255 characters');
});

test('when a definition has a pattern, then a non-empty value must match it and an empty one need not', (t) => {
  const coded = def({ pattern: '^[A-Z]{3}-\\d+$' });
  t.is(invalidFor(coded, 'ABC-12'), null);
  t.is(invalidFor(coded, 'abc-12'), 'must match the pattern ^[A-Z]{3}-\\d+$');
  t.is(invalidFor(coded, ''), null);
});

test('when a rich text value is stored, then it is sanitised; other types are stored as given', (t) => {
  t.false(storedValue(def({ type: 'rich_text' }), '<p>Hi</p><script>alert(1)</script>').includes('<script>'));
  t.is(storedValue(def({ type: 'text' }), '<b>as given</b>'), '<b>as given</b>');
});

test('when base values are checked, then unknown, built-in, repeated and invalid ones are refused by position and valid ones resolved', (t) => {
  const defs = [
    def(),
    def({ id: 11, key: 'level', type: 'number' }),
    def({ id: 12, key: 'course_text_1', type: 'rich_text', is_builtin: true }),
    def({ id: 13, key: 'path_only', applies_to: 'learning_path' }),
  ];
  const { problems, values } = checkBaseValues(defs, COURSE_TEMPLATE_VALUES, [
    { definitionKey: 'audience', value: 'Managers' },
    { definitionKey: 'nope', value: 'x' },
    { definitionKey: 'course_text_1', value: '<p>x</p>' },
    { definitionKey: 'audience', value: 'again' },
    { definitionKey: 'level', value: 'high' },
    { definitionKey: 'path_only', value: 'x' },
  ]);
  t.deepEqual(problems, [
    {
      field: 'customFieldValues[1].definitionKey',
      value: 'nope',
      message: 'Custom Field Definition does not exist or does not apply to this Course Template',
    },
    {
      field: 'customFieldValues[2].definitionKey',
      value: 'course_text_1',
      message: 'This Custom Field is a built-in course description field; set it with the courseText fields, not customFieldValues',
    },
    { field: 'customFieldValues[3].definitionKey', value: 'audience', message: 'This Custom Field is given twice' },
    { field: 'customFieldValues[4].value', value: 'high', message: 'Value must be a number such as 12 or 3.5' },
    {
      field: 'customFieldValues[5].definitionKey',
      value: 'path_only',
      message: 'Custom Field Definition does not exist or does not apply to this Course Template',
    },
  ]);
  t.deepEqual(
    values.map((v) => [v.def.key, v.value]),
    [['audience', 'Managers']],
  );
});

test('when a base value is null, then it resolves to a removal (null), not a problem', (t) => {
  const { problems, values } = checkBaseValues([def({ type: 'number', key: 'level' })], COURSE_TEMPLATE_VALUES, [
    { definitionKey: 'level', value: null },
  ]);
  t.deepEqual(problems, []);
  t.deepEqual(
    values.map((v) => v.value),
    [null],
  );
});

test('when translated values are checked, then each rule of the contract refuses in order: built-in, not translatable, not text-shaped, no base value', (t) => {
  const defs = [
    def({ id: 1, key: 'intro', type: 'rich_text', is_builtin: true }),
    def({ id: 2, key: 'internal', is_translatable: false }),
    def({ id: 3, key: 'hours', type: 'number' }),
    def({ id: 4, key: 'tagline' }),
    def({ id: 5, key: 'audience' }),
  ];
  const base = [2, 3, 5].map((id) => ({ definition_id: id, locale_id: null, value: 'base' }));
  const { problems, values } = checkTranslatedValues(defs, COURSE_TEMPLATE_VALUES, base, [
    { definitionKey: 'intro', value: 'x' },
    { definitionKey: 'internal', value: 'x' },
    { definitionKey: 'hours', value: '3' },
    { definitionKey: 'tagline', value: 'x' },
    { definitionKey: 'audience', value: 'Gestionnaires' },
  ]);
  t.deepEqual(
    problems.map((p) => [p.field, p.message]),
    [
      [
        'customFieldValues[0].definitionKey',
        'This Custom Field is a built-in course description field; translate it with the courseText fields on this mutation, not customFieldValues',
      ],
      ['customFieldValues[1].definitionKey', 'This Custom Field is not translatable'],
      ['customFieldValues[2].definitionKey', 'Only text custom fields can be translated'],
      ['customFieldValues[3].definitionKey', 'Custom Field has no base value on the Course Template to translate'],
    ],
  );
  t.deepEqual(
    values.map((v) => [v.def.key, v.value]),
    [['audience', 'Gestionnaires']],
  );
});

test("when a translated value fails the definition's validator, then it is refused on its value with the value it had; for another kind of record the definition does not apply", (t) => {
  const { problems } = checkTranslatedValues(
    [def({ id: 5, max_length: 3 })],
    LEARNING_PATH_VALUES,
    [{ definition_id: 5, locale_id: null, value: 'abc' }],
    [{ definitionKey: 'audience', value: 'abcd' }],
  );
  t.deepEqual(problems, [
    {
      field: 'customFieldValues[0].definitionKey',
      value: 'audience',
      message: 'Custom Field Definition does not exist or does not apply to this Learning Path',
    },
  ]);
  const same = checkTranslatedValues(
    [def({ id: 5, max_length: 3 })],
    COURSE_TEMPLATE_VALUES,
    [{ definition_id: 5, locale_id: null, value: 'abc' }],
    [{ definitionKey: 'audience', value: 'abcd' }],
  );
  t.deepEqual(same.problems, [{ field: 'customFieldValues[0].value', value: 'abcd', message: 'Value must be at most 3 characters' }]);
});

test('when values are shown in a locale, then each field shows its translation there, else its base value; built-in fields are not shown', (t) => {
  const defs = new Map(
    [def({ id: 2, key: 'b' }), def({ id: 1, key: 'a' }), def({ id: 3, key: 'builtin', is_builtin: true })].map((d) => [d.id, d]),
  );
  const stored = [
    { definition_id: 2, locale_id: null, value: 'B' },
    { definition_id: 1, locale_id: null, value: 'A' },
    { definition_id: 1, locale_id: 7, value: 'A-fr' },
    { definition_id: 3, locale_id: null, value: 'hidden' },
  ];
  t.deepEqual(
    shownValues(defs, stored, 7).map((v) => [v.def.key, v.value]),
    [
      ['a', 'A-fr'],
      ['b', 'B'],
    ],
  );
  t.deepEqual(
    shownValues(defs, stored, null).map((v) => [v.def.key, v.value]),
    [
      ['a', 'A'],
      ['b', 'B'],
    ],
  );
});

test('when a new definition is checked, then a bad key and type are refused with the values given, and a good one defaults to not translatable', (t) => {
  const bad = newDefinition({ key: 'Bad Key', label: 'L', type: 'colour', appliesTo: 'event' });
  t.deepEqual(
    bad.problems.map((p) => [p.field, p.value]),
    [
      ['key', 'Bad Key'],
      ['type', 'colour'],
    ],
  );
  t.is(bad.problems[0]!.message, 'must be 1-63 lowercase letters, digits or _, starting with a letter');
  t.is(bad.definition, undefined);
  const good = newDefinition({ key: 'level', label: ' Level ', type: 'number', appliesTo: 'event' });
  t.deepEqual(good.problems, []);
  t.like(good.definition, { key: 'level', label: 'Level', isTranslatable: false });
  t.regex(newDefinition({ key: 'k', label: 'L', type: 'text', appliesTo: 'event', pattern: '(a)\\1' }).problems[0]!.message, /valid RE2/);
});

test('when a definition is changed, then its key, type and appliesTo cannot change, a built-in one not at all, and absent fields keep their value', (t) => {
  const existing = def({ max_length: 40, pattern: '^x' });
  const refused = changedDefinition(def({ is_builtin: true }), { key: 'other', type: 'number', appliesTo: 'course_template' });
  t.deepEqual(
    refused.problems.map((p) => [p.field, p.message]),
    [
      ['customFieldDefinitionId', 'Built-in custom fields cannot be changed'],
      ['key', 'The key of a custom field cannot change'],
      ['type', 'The type of a custom field cannot change'],
    ],
  );
  const kept = changedDefinition(existing, { label: 'Who' });
  t.deepEqual(kept.problems, []);
  t.like(kept.definition, { label: 'Who', maxLength: 40, pattern: '^x', isTranslatable: true });
  t.like(changedDefinition(existing, { maxLength: null, pattern: null }).definition, { maxLength: null, pattern: null });
});

test('when translatability is turned off while translated values exist, then it is refused; otherwise not', (t) => {
  const message = 'This Custom Field has translated values; remove them from the translations first';
  t.deepEqual(
    translatabilityProblems(def(), { isTranslatable: false }, true).map((p) => p.message),
    [message],
  );
  t.deepEqual(translatabilityProblems(def(), { isTranslatable: false }, false), []);
  t.deepEqual(translatabilityProblems(def(), { label: 'x' }, true), []);
});

test('when a definition label or description holds a NUL character, then it is refused on that field (PostgreSQL text cannot hold one)', (t) => {
  const created = newDefinition({ key: 'notes', label: 'Notes', type: 'text', appliesTo: 'event', description: 'a\u0000b' } as Parameters<
    typeof newDefinition
  >[0]);
  t.deepEqual(
    created.problems.map((p) => [p.field, p.message]),
    [['description', 'must not contain NUL characters']],
  );
  const changed = changedDefinition(def(), { label: 'x\u0000' } as Parameters<typeof changedDefinition>[1]);
  t.deepEqual(
    changed.problems.map((p) => p.field),
    ['label'],
  );
  t.deepEqual(
    newDefinition({ key: 'notes', label: 'Notes', type: 'text', appliesTo: 'event', description: 'fine' } as Parameters<
      typeof newDefinition
    >[0]).problems,
    [],
  );
});
