import test from 'ava';
import { cascadedLocale, eventLocale, eventTextProblems, inherit, type Inheritance } from '../../src/modules/events/events.rules.js';
import { classroomProblems } from '../../src/modules/events/event-creation.rules.js';

/** The rules of events: which locale a new event is delivered in (contract rule 6) and what it takes from its template in it (rule 7). Pure, no database. */

const EN = 1;
const FR = 2;
const DE = 3;

function template(over: Partial<Inheritance['template']> = {}, rest: Partial<Omit<Inheritance, 'template'>> = {}): Inheritance {
  return {
    template: { id: 7, title: 'Fire Safety', locale_id: EN, default_delivery_locale_id: FR, ...over },
    titles: new Map([[FR, 'Sécurité incendie']]),
    values: [
      { definition_id: 10, locale_id: null, value: 'Two days' },
      { definition_id: 10, locale_id: FR, value: 'Deux jours' },
      { definition_id: 11, locale_id: null, value: 'Bring boots' },
    ],
    supported: new Set([EN, FR, DE]),
    ...rest,
  };
}

test('when the caller names a locale, then the event is in it, whatever the template would choose', (t) => {
  t.deepEqual(eventLocale({ id: DE }, template(), []), { localeId: DE, problems: [] });
});

test('when the caller gives an explicit null locale, then the event has none, though the template has a default delivery locale', (t) => {
  t.deepEqual(eventLocale(null, template(), [FR]), { localeId: null, problems: [] });
});

test("when the caller gives no locale, then the event takes the template's default delivery locale", (t) => {
  t.deepEqual(eventLocale(undefined, template(), [EN, FR]), { localeId: FR, problems: [] });
});

test("when the caller gives no locale and the template has no default delivery locale, then the event takes the template's own locale", (t) => {
  t.is(eventLocale(undefined, template({ default_delivery_locale_id: null }), []).localeId, EN);
});

test('when the default delivery locale is no longer supported, then the chain goes on to the own locale, and ends with none', (t) => {
  t.is(cascadedLocale(template({}, { supported: new Set([EN]) })), EN);
  t.is(cascadedLocale(template({}, { supported: new Set() })), null);
  t.is(cascadedLocale(undefined), null);
});

test("when the chosen locale is not one of the template's delivery locales, then it is refused with the contract's message on localeId", (t) => {
  t.deepEqual(eventLocale({ id: DE }, template(), [EN, FR]).problems, [
    { field: 'localeId', value: DE, message: "Locale is not one of the Course Template's delivery languages" },
  ]);
});

test('when the template has no delivery locales, then any supported locale may be chosen', (t) => {
  t.deepEqual(eventLocale({ id: DE }, template({ default_delivery_locale_id: null }), []).problems, []);
});

test('when the locale named is not supported, then it is refused as such', (t) => {
  t.deepEqual(eventLocale(false, template(), []), {
    localeId: null,
    problems: [{ field: 'localeId', value: null, message: 'Provided locale is not supported' }],
  });
});

test('when the event is in a translated locale, then each field takes the translation, and an untranslated one falls back to the template', (t) => {
  t.deepEqual(inherit(template(), FR), {
    title: 'Sécurité incendie',
    values: [
      { definition_id: 10, value: 'Deux jours' },
      { definition_id: 11, value: 'Bring boots' },
    ],
  });
});

test("when the event is in a locale with no translation, in the template's own locale, or in none, then it takes the template's own content", (t) => {
  const own = {
    title: 'Fire Safety',
    values: [
      { definition_id: 10, value: 'Two days' },
      { definition_id: 11, value: 'Bring boots' },
    ],
  };
  t.deepEqual(inherit(template(), DE), own);
  t.deepEqual(inherit(template(), EN), own);
  t.deepEqual(inherit(template(), null), own);
});

test("when a translation in the template's own locale exists, then it is not used: the own locale is the template's content", (t) => {
  t.is(inherit(template({}, { titles: new Map([[EN, 'Other']]) }), EN).title, 'Fire Safety');
});

const classroom = { eventType: 'public', timeZoneName: 'Europe/London' };

test('when a classroom event has no template and no title, then a title is required; with a template (found or not) it is not', (t) => {
  t.deepEqual(classroomProblems(classroom, false).problems, [
    { field: 'title', value: null, message: 'title is required for an event without a course template' },
  ]);
  t.deepEqual(classroomProblems(classroom, true).problems, []);
});

test('when the end is not after the start, or comes without one, then it is refused', (t) => {
  t.deepEqual(
    classroomProblems(
      { ...classroom, classroomStartDateTime: '2027-03-10T09:00', classroomEndDateTime: '2027-03-10T09:00:00' },
      true,
    ).problems.map((p) => p.message),
    ['classroomEndDateTime must be after classroomStartDateTime'],
  );
  t.deepEqual(
    classroomProblems({ ...classroom, classroomEndDateTime: '2027-03-10 10:00' }, true).problems.map((p) => p.message),
    ['classroomEndDateTime needs classroomStartDateTime'],
  );
  const ok = classroomProblems(
    { ...classroom, classroomStartDateTime: '2027-03-10 09:00', classroomEndDateTime: '2027-03-10T17:30' },
    true,
  );
  t.deepEqual([ok.problems, ok.start, ok.end, ok.zone], [[], '2027-03-10T09:00', '2027-03-10T17:30', 'Europe/London']);
});

test('when the type, zone, places or lifecycle state are out of range, then each is named', (t) => {
  const fields = classroomProblems(
    { ...classroom, eventType: 'secret', timeZoneName: 'Mars/Base', maxPlaces: 2, minPlaces: 3, lifecycleState: 'archived' },
    true,
  ).problems.map((p) => p.field);
  t.deepEqual(fields, ['eventType', 'timeZoneName', 'minPlaces', 'lifecycleState']);
});

test('when an event title or code holds a line break, a blank title, or a code over 64 characters, then it is refused', (t) => {
  t.deepEqual(eventTextProblems({ title: 'Fire\nSafety' }), [
    { field: 'title', value: 'Fire\nSafety', message: 'title must be one line of 1 to 255 characters' },
  ]);
  t.deepEqual(
    eventTextProblems({ title: '  ' }).map((p) => p.field),
    ['title'],
  );
  t.deepEqual(
    eventTextProblems({ code: 'x'.repeat(65) }).map((p) => p.message),
    ['code must be one line of at most 64 characters'],
  );
  t.deepEqual(eventTextProblems({ title: 'Fire Safety', code: 'x'.repeat(64) }), []);
});
