import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { insertDocument } from '../../src/modules/documents/documents.data.js';
import { insertPriceLevel } from '../../src/modules/pricing/pricing.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Online (LMS) and blended events, event prices and document downloads as the Core API's
 * integrations call them (real-clients.md section 3): `event { createLMS createBlended }` with
 * `LocalDateTime` variables, custom field values keyed by definition id and the older keys
 * (`timeZone`, `timeZonedLmsStart`), `event { addPrices }` with a `Decimal` amount, and the root
 * `downloadDocument(documentId:)`; through real HTTP with real bearer tokens, each write read
 * back through the API (and the REST API: the same rows).
 */
let f: GraphQLFixture;
let en: string;
let fr: string;
let location: string;
let taxType: string;
/** Templates: Actuarial Statistics (English, with a custom field value), Sécurité (delivered in French by default). */
let statistics: string;
let safety: string;
/** Event custom field definitions by key: their global ids, as clients send them as definitionKey. */
const cf: Record<string, string> = {};
let normal: string;
let member: string;
const ids: Record<string, number> = {};

const legacy = (id: string) => Number(Buffer.from(id, 'base64').toString().split(':')[1]);
const venue25 = toGlobalId('Venue', 25);

test.serial.before(async () => {
  f = await graphqlFixture('gcec');
  en = await f.locale(f.tenant, 'en');
  fr = await f.locale(f.tenant, 'fr');
  const made = await f.data(
    f.admin,
    `mutation {
    l: location { create(input: {name: "Holborn Centre", addressTown: "London", addressCountryId: "GB", timeZoneName: "Europe/London"}) { location { id } errors { message } } }
    t: taxType { create(input: {name: "Standard VAT", rate: 20}) { taxType { id } errors { message } } }
    c: customFieldDefinition { create(input: {key: "syllabus", label: "Syllabus", type: TEXT, appliesTo: COURSE_TEMPLATE, isTranslatable: true}) { errors { message } } } }`,
  );
  location = made.l.create.location.id;
  taxType = made.t.create.taxType.id;
  for (const [key, type] of [
    ['sitting', 'TEXT'],
    ['finalisation_date', 'DATE'],
    ['event_url', 'TEXT'],
    ['web_sale', 'BOOLEAN'],
    ['moodle_code', 'TEXT'],
  ] as const) {
    const d = await f.data(
      f.admin,
      `mutation { customFieldDefinition { create(input: {key: "${key}", label: "${key}", type: ${type}, appliesTo: EVENT}) { customFieldDefinition { id } errors { message } } } }`,
    );
    if (d.customFieldDefinition.create.errors.length) throw new Error(JSON.stringify(d));
    cf[key] = d.customFieldDefinition.create.customFieldDefinition.id;
  }
  const template = async (input: Record<string, unknown>) => {
    const d = await f.data(
      f.admin,
      'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } errors { message } } } }',
      { input },
    );
    if (d.courseTemplate.create.errors.length) throw new Error(JSON.stringify(d));
    return d.courseTemplate.create.courseTemplate.id as string;
  };
  statistics = await template({
    title: 'Actuarial Statistics',
    code: 'CB1',
    localeId: en,
    customFieldValues: [{ definitionKey: 'syllabus', value: 'Probability and inference' }],
  });
  safety = await template({
    title: 'Fire Safety',
    localeId: en,
    deliveryLocaleIds: [en, fr],
    defaultDeliveryLocaleId: fr,
    customFieldValues: [{ definitionKey: 'syllabus', value: 'Evacuation' }],
  });
  const tr = await f.data(
    f.admin,
    'mutation ($input: CourseTemplateTranslationUpsertInput!) { courseTemplate { upsertTranslation(input: $input) { errors { message } } } }',
    {
      input: {
        courseTemplateId: safety,
        localeId: fr,
        title: 'Sécurité incendie',
        customFieldValues: [{ definitionKey: 'syllabus', value: 'Évacuation' }],
      },
    },
  );
  if (tr.courseTemplate.upsertTranslation.errors.length) throw new Error(JSON.stringify(tr));
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    // The venue the sync service names (a venue of this instance: venues module).
    await db('venues').insert({ id: 25, name: 'Hall 3' });
    normal = toGlobalId('PriceLevel', (await db('price_levels').where({ name: 'Normal' }).first('id')).id);
    member = toGlobalId('PriceLevel', (await insertPriceLevel(db, 'Member')).id);
    ids.image = (
      await insertDocument(db, {
        name: 'cb1.png',
        description: 'Statistics course banner',
        folder: 'Course images',
        url: 'https://cdn.example.com/cb1.png',
      })
    ).id;
  });
});
test.after.always(async () => f?.close());

/** The blended event mutation as the sync service builds it: each key a variable, four custom fields by definition id. */
const CREATE_BLENDED = `mutation makeBlended($title: String!, $locationId: ID!, $venueId: ID, $eventType: EventType!, $taxType: ID!, $courseTemplateId: ID!,
  $timeZoneName: String!, $classroomStartDateTime: LocalDateTime!, $classroomEndDateTime: LocalDateTime!, $lmsStartDateTime: LocalDateTime!, $lmsEndDateTime: LocalDateTime!,
  $maxPlaces: Int, $sittingKey: ID!, $sitting: String, $finalisationKey: ID!, $finalisation: String, $urlKey: ID!, $url: String, $webSaleKey: ID!, $webSale: String) {
  event { createBlended(input: { courseTemplateId: $courseTemplateId, title: $title, eventType: $eventType, locationId: $locationId, venueId: $venueId, taxType: $taxType,
      timeZoneName: $timeZoneName, classroomStartDateTime: $classroomStartDateTime, classroomEndDateTime: $classroomEndDateTime,
      lmsStartDateTime: $lmsStartDateTime, lmsEndDateTime: $lmsEndDateTime, maxPlaces: $maxPlaces,
      customFieldValues: [{ definitionKey: $sittingKey, value: $sitting }, { definitionKey: $finalisationKey, value: $finalisation }, { definitionKey: $urlKey, value: $url }, { definitionKey: $webSaleKey, value: $webSale }] }) {
    event { id legacyId location { id } venue { id } }
    errors { label message value } } } }`;

/** The LMS event mutation as the sync service builds it. */
const CREATE_LMS = `mutation makeLms($courseTemplateId: ID!, $eventType: EventType!, $lmsEndDateTime: LocalDateTime!, $lmsStartDateTime: LocalDateTime!, $title: String!,
  $locationId: ID!, $taxType: ID!, $timeZoneName: String!, $moodleKey: ID!, $moodle: String!, $sittingKey: ID!, $sitting: String, $webSaleKey: ID!, $webSale: String) {
  event { createLMS(input: { courseTemplateId: $courseTemplateId, eventType: $eventType, title: $title, lmsEndDateTime: $lmsEndDateTime, lmsStartDateTime: $lmsStartDateTime,
      locationId: $locationId, taxType: $taxType, timeZoneName: $timeZoneName,
      customFieldValues: [{ definitionKey: $sittingKey, value: $sitting }, { definitionKey: $moodleKey, value: $moodle }, { definitionKey: $webSaleKey, value: $webSale }] }) {
    event { id legacyId }
    errors { label message value } } } }`;

const blendedVars = () => ({
  title: 'CB1-01-25S',
  locationId: location,
  venueId: venue25,
  eventType: 'public',
  taxType,
  courseTemplateId: statistics,
  timeZoneName: 'Europe/London',
  classroomStartDateTime: '2025-03-03T09:00:00',
  classroomEndDateTime: '2025-03-03T17:00:00',
  lmsStartDateTime: '2025-02-01T00:00:00',
  lmsEndDateTime: '2025-04-30T23:59:00',
  maxPlaces: 20,
  sittingKey: cf.sitting,
  sitting: '25S',
  finalisationKey: cf.finalisation_date,
  finalisation: '2025-02-20',
  urlKey: cf.event_url,
  url: 'https://example.org/cb1',
  webSaleKey: cf.web_sale,
  webSale: 'true',
});
const lmsVars = () => ({
  courseTemplateId: statistics,
  eventType: 'public',
  lmsStartDateTime: '2025-04-01T00:00:00',
  lmsEndDateTime: '2025-09-30T00:00:00',
  title: 'CB1-OC-25S',
  locationId: location,
  taxType,
  timeZoneName: 'Europe/London',
  moodleKey: cf.moodle_code,
  moodle: 'CB1OC25S',
  sittingKey: cf.sitting,
  sitting: '25S',
  webSaleKey: cf.web_sale,
  webSale: 'false',
});

const READ = `query ($id: ID!) { node(id: $id) { ... on Event { id title inheritsTitle learningMode eventType lifecycleState timeZoneName locale { code }
  classroomStartDateTime classroomEndDateTime lmsStartDateTime lmsEndDateTime classroomStart classroomEnd lmsStart lmsEnd start end
  maxPlaces location { id } venue { id } taxType { id } courseTemplate { id }
  customFieldValues { definitionKey value }
  prices { edges { node { id amount priceLevel { name } financialUnit { name __typename ... on Currency { symbol } } region { code } } } } } } }`;
const readEvent = async (id: string) => (await f.data(f.admin, READ, { id })).node;
const valuesOf = (e: { customFieldValues: { definitionKey: string; value: string }[] }) =>
  Object.fromEntries(e.customFieldValues.map((v) => [v.definitionKey, v.value]));
/** What a refused write must leave as it was: the rows of events, their custom field values and prices. */
const counts = () =>
  withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const n = async (table: string) => Number((await db(table).count('* as n').first())!.n);
    return { events: await n('events'), values: await n('event_field_values'), prices: await n('prices') };
  });

test.serial(
  'when a blended event is created as the sync service sends it, then it is stored with both parts, the template, the venue and its custom fields',
  async (t) => {
    const res = (await f.data(f.admin, CREATE_BLENDED, blendedVars())).event.createBlended;
    t.deepEqual(res.errors, []);
    t.like(res.event, { location: { id: location }, venue: { id: venue25 } });
    t.is(res.event.id, toGlobalId('Event', res.event.legacyId));
    ids.blended = res.event.legacyId;
    const e = await readEvent(res.event.id);
    t.like(e, {
      title: 'CB1-01-25S',
      inheritsTitle: false,
      learningMode: 'BLENDED',
      eventType: 'public',
      lifecycleState: 'published',
      timeZoneName: 'Europe/London',
      classroomStartDateTime: '2025-03-03T09:00:00',
      classroomEndDateTime: '2025-03-03T17:00:00',
      lmsStartDateTime: '2025-02-01T00:00:00',
      lmsEndDateTime: '2025-04-30T23:59:00',
      // London is on UTC in February and March, an hour ahead from the end of March.
      classroomStart: '2025-03-03T09:00:00Z',
      classroomEnd: '2025-03-03T17:00:00Z',
      lmsStart: '2025-02-01T00:00:00Z',
      lmsEnd: '2025-04-30T22:59:00Z',
      start: '2025-02-01T00:00:00Z',
      end: '2025-04-30T22:59:00Z',
      maxPlaces: 20,
      venue: { id: venue25 },
      taxType: { id: taxType },
      courseTemplate: { id: statistics },
      prices: { edges: [] },
    });
    // Its own fields as sent, beside what it inherited from the template.
    t.deepEqual(valuesOf(e), {
      syllabus: 'Probability and inference',
      sitting: '25S',
      finalisation_date: '2025-02-20',
      event_url: 'https://example.org/cb1',
      web_sale: 'true',
    });
    // The same row through REST: its period spans both parts, and it has an online part.
    const rest = (await f.api('GET', `event/public_events/${ids.blended}`)).json;
    t.like(rest, {
      title: 'CB1-01-25S',
      event_template_id: legacy(statistics),
      venue_id: 25,
      tax_type_id: legacy(taxType),
      start_date: '2025-02-01',
      end_date: '2025-04-30',
      delegates_max: 20,
      is_lms: true,
    });
  },
);

test.serial(
  'when an LMS event is created as the sync service sends it, then it has its online period, no classroom part, and its custom fields',
  async (t) => {
    const res = (await f.data(f.admin, CREATE_LMS, lmsVars())).event.createLMS;
    t.deepEqual(res.errors, []);
    ids.lms = res.event.legacyId;
    const e = await readEvent(res.event.id);
    t.like(e, {
      title: 'CB1-OC-25S',
      learningMode: 'LMS',
      classroomStartDateTime: null,
      classroomEndDateTime: null,
      classroomStart: null,
      lmsStartDateTime: '2025-04-01T00:00:00',
      lmsEndDateTime: '2025-09-30T00:00:00',
      // British Summer Time: an hour ahead of UTC.
      lmsStart: '2025-03-31T23:00:00Z',
      lmsEnd: '2025-09-29T23:00:00Z',
      start: '2025-03-31T23:00:00Z',
      location: { id: location },
      venue: null,
      courseTemplate: { id: statistics },
    });
    t.deepEqual(valuesOf(e), { syllabus: 'Probability and inference', sitting: '25S', moodle_code: 'CB1OC25S', web_sale: 'false' });
    const rest = (await f.api('GET', `event/public_events/${ids.lms}`)).json;
    t.like(rest, { start_date: '2025-04-01', end_date: '2025-09-30', classroom_start: null, is_lms: true });
    // The events list finds it by how it is delivered.
    const listed = await f.data(
      f.admin,
      '{ events(filters: [{field: learningMode, operation: eq, value: "LMS"}]) { edges { node { id } } } }',
    );
    t.deepEqual(listed.events.edges, [{ node: { id: res.event.id } }]);
  },
);

test.serial(
  'when an event is created without a title, then it takes the template title and custom fields in its delivery locale',
  async (t) => {
    const res = (
      await f.data(
        f.admin,
        `mutation ($tpl: ID!, $start: LocalDateTime!, $end: LocalDateTime!) { event { createLMS(input: {courseTemplateId: $tpl, eventType: private, timeZoneName: "Europe/Paris", lmsStartDateTime: $start, lmsEndDateTime: $end}) {
        event { id title inheritsTitle locale { code } learningMode } errors { label message value } } } }`,
        { tpl: safety, start: '2025-05-01T09:00', end: '2025-05-31T18:00' },
      )
    ).event.createLMS;
    t.deepEqual(res.errors, []);
    t.like(res.event, { title: 'Sécurité incendie', inheritsTitle: true, locale: { code: 'fr' }, learningMode: 'LMS' });
    const e = await readEvent(res.event.id);
    t.deepEqual(valuesOf(e), { syllabus: 'Évacuation' });
    t.like(e, { eventType: 'private', lmsStartDateTime: '2025-05-01T09:00:00', lmsStart: '2025-05-01T07:00:00Z' });
  },
);

test.serial(
  'when the older forms are sent (literals, timeZone, ISO instants for the online period), then they are read as the newer keys',
  async (t) => {
    const lms = (
      await f.data(
        f.admin,
        `
    mutation{
        event{ createLMS(input:{ courseTemplateId:"${statistics}" eventType:public timeZonedLmsEnd:"2024-09-30T00:00:00Z" timeZonedLmsStart:"2024-04-01T00:00:00Z"
          locationId:"${location}" taxType:"${taxType}" timeZoneName:"Europe/London" }){
            event { id legacyId } errors { label message value } } } }`,
      )
    ).event.createLMS;
    t.deepEqual(lms.errors, []);
    // The instants as London's clock read them (BST), and so the same instants back.
    t.like(await readEvent(lms.event.id), {
      title: 'Actuarial Statistics',
      lmsStartDateTime: '2024-04-01T01:00:00',
      lmsEndDateTime: '2024-09-30T01:00:00',
      lmsStart: '2024-04-01T00:00:00Z',
      lmsEnd: '2024-09-30T00:00:00Z',
    });

    const BLENDED = (
      zones: string,
    ) => `mutation createEvent { event { createBlended(input:{ eventType:public locationId:"${location}" taxType:"${taxType}" courseTemplateId:"${statistics}" ${zones}
      classroomStartDateTime: "2024-03-04T09:00:00" classroomEndDateTime: "2024-03-04T17:00:00" lmsStartDateTime: "2024-02-01T00:00:00" lmsEndDateTime: "2024-04-30T23:59:00" maxPlaces:20 }){
      event { id legacyId timeZoneName } errors { label message value } } } }`;
    const before = await counts();
    // Two names of the zone naming two zones: which clock the times are on is unclear, so nothing is made.
    const conflict = (await f.data(f.admin, BLENDED('timeZoneName:"UTC" timeZone:"Europe/London"'))).event.createBlended;
    t.deepEqual(conflict, {
      event: null,
      errors: [
        {
          label: 'timeZone',
          message: 'timeZone is the older name of timeZoneName: give one of them, or the same zone in both',
          value: 'Europe/London',
        },
      ],
    });
    t.deepEqual(await counts(), before);
    const older = (await f.data(f.admin, BLENDED('timeZone:"Europe/London"'))).event.createBlended;
    t.deepEqual(older.errors, []);
    t.like(await readEvent(older.event.id), {
      title: 'Actuarial Statistics',
      timeZoneName: 'Europe/London',
      learningMode: 'BLENDED',
      classroomStartDateTime: '2024-03-04T09:00:00',
      lmsEndDateTime: '2024-04-30T23:59:00',
    });
    const both = (await f.data(f.admin, BLENDED('timeZoneName:"Europe/London" timeZone:"Europe/London"'))).event.createBlended;
    t.deepEqual(both.errors, []);
  },
);

test.serial(
  'when an LMS or blended event is refused, then each problem is a FieldError under the key sent, and nothing is written',
  async (t) => {
    const before = await counts();
    const refusedLms = async (vars: Record<string, unknown>) =>
      (await f.data(f.admin, CREATE_LMS, { ...lmsVars(), ...vars })).event.createLMS;
    const refusedBlended = async (vars: Record<string, unknown>) =>
      (await f.data(f.admin, CREATE_BLENDED, { ...blendedVars(), ...vars })).event.createBlended;

    t.deepEqual(await refusedLms({ lmsEndDateTime: '2025-03-01T00:00:00' }), {
      event: null,
      errors: [{ label: 'lmsEndDateTime', message: 'lmsEndDateTime must be after lmsStartDateTime', value: '2025-03-01T00:00:00' }],
    });
    const notFound = await refusedLms({
      courseTemplateId: toGlobalId('CourseTemplate', 99999),
      taxType: toGlobalId('TaxType', 99999),
      locationId: taxType,
      timeZoneName: 'Mars/Base',
    });
    t.deepEqual(notFound.errors, [
      { label: 'courseTemplateId', message: 'Course Template not found', value: toGlobalId('CourseTemplate', 99999) },
      { label: 'timeZoneName', message: 'timeZoneName must be an IANA time zone name such as Europe/London', value: 'Mars/Base' },
      { label: 'locationId', message: 'Location not found', value: taxType },
      { label: 'taxType', message: 'Tax Type not found', value: toGlobalId('TaxType', 99999) },
    ]);
    // A custom field of course templates, or one not set on events, is not the event's own; a value must suit its field.
    const fieldsRefused = await refusedLms({ moodleKey: 'syllabus', webSale: 'yes' });
    t.deepEqual(fieldsRefused.errors[0], {
      label: 'customFieldValues[1].definitionKey',
      message: 'Custom Field Definition does not exist or does not apply to this Event',
      value: 'syllabus',
    });
    t.deepEqual(fieldsRefused.errors[1], { label: 'customFieldValues[2].value', message: "Value must be 'true' or 'false'", value: 'yes' });
    t.is(fieldsRefused.errors.length, 2);

    const blended = await refusedBlended({ classroomEndDateTime: '2025-03-03T08:00:00', venueId: location });
    t.deepEqual(blended, {
      event: null,
      errors: [
        {
          label: 'classroomEndDateTime',
          message: 'classroomEndDateTime must be after classroomStartDateTime',
          value: '2025-03-03T08:00:00',
        },
        { label: 'venueId', message: 'Venue not found', value: location },
      ],
    });
    // A blended event without its online part: the two keys left out are required.
    const noOnline = await f.data(
      f.admin,
      `mutation ($tpl: ID!) { event { createBlended(input: {courseTemplateId: $tpl, eventType: public, timeZoneName: "UTC", classroomStartDateTime: "2025-06-01T09:00", classroomEndDateTime: "2025-06-01T17:00"}) { event { id } errors { label message value } } } }`,
      { tpl: statistics },
    );
    t.deepEqual(noOnline.event.createBlended.errors, [
      { label: 'lmsStartDateTime', message: 'lmsStartDateTime is required for a blended event', value: null },
      { label: 'lmsEndDateTime', message: 'lmsEndDateTime is required for a blended event', value: null },
    ]);
    // Without a template an event needs a title of its own.
    const untitled = await f.data(
      f.admin,
      'mutation { event { createLMS(input: {eventType: public, timeZoneName: "UTC", lmsStartDateTime: "2025-06-01T00:00", lmsEndDateTime: "2025-07-01T00:00"}) { errors { label message } } } }',
    );
    t.deepEqual(untitled.event.createLMS.errors, [{ label: 'title', message: 'title is required for an event without a course template' }]);
    t.deepEqual(await counts(), before);
  },
);

test.serial(
  'when a LocalDateTime carries an offset or is no date-time, then the request is refused with a message saying how to write it',
  async (t) => {
    const before = await counts();
    const withOffset = await f.gql(f.admin, CREATE_LMS, { ...lmsVars(), lmsStartDateTime: '2025-04-01T00:00:00Z' });
    t.is(withOffset.json.data, undefined);
    t.regex(
      withOffset.json.errors[0].message,
      /^Variable "\$lmsStartDateTime" got invalid value "2025-04-01T00:00:00Z"; LocalDateTime: "2025-04-01T00:00:00Z" has an offset: write the time on the event's clock without one/,
    );
    // Written in the document too, the scalar's own words say how to write it.
    const literal = (start: string) =>
      `mutation { event { createLMS(input: {eventType: public, title: "x", timeZoneName: "UTC", lmsStartDateTime: "${start}", lmsEndDateTime: "2025-07-01T00:00"}) { errors { label } } } }`;
    t.regex(
      (await f.gql(f.admin, literal('2025-04-01T00:00:00+01:00'))).json.errors[0].message,
      /LocalDateTime: "2025-04-01T00:00:00\+01:00" has an offset: write the time on the event's clock without one, e\.g\. "2025-03-03T09:00:00"/,
    );
    t.regex(
      (await f.gql(f.admin, literal('2025-02-30T00:00'))).json.errors[0].message,
      /LocalDateTime: "2025-02-30T00:00" is not a local date-time: write it as "2025-03-03T09:00:00"/,
    );
    t.deepEqual(await counts(), before);
  },
);

/** The price mutation as the sync service builds it. */
const ADD_PRICE = `mutation addEventPriceLevel($amount: Decimal!, $eventId: ID!, $financialUnitId: ID!, $priceLevelId: ID!) {
  event { addPrices(input: { amount: $amount, eventId: $eventId, financialUnitId: $financialUnitId, priceLevelId: $priceLevelId }) { prices { id } errors { label message value } } } }`;
const GBP = Buffer.from('Currency:GBP').toString('base64');

test.serial(
  'when prices are added to an event, then it lists them with level and currency; the same level and currency again takes the new amount',
  async (t) => {
    const eventId = toGlobalId('Event', ids.blended!);
    const first = (await f.data(f.admin, ADD_PRICE, { amount: '495.00', eventId, financialUnitId: GBP, priceLevelId: normal })).event
      .addPrices;
    t.deepEqual(first.errors, []);
    t.is(first.prices.length, 1);
    const memberPrice = (await f.data(f.admin, ADD_PRICE, { amount: '395.5', eventId, financialUnitId: 'EUR', priceLevelId: member })).event
      .addPrices;
    t.deepEqual(memberPrice.errors, []);
    const again = (await f.data(f.admin, ADD_PRICE, { amount: '450.00', eventId, financialUnitId: GBP, priceLevelId: normal })).event
      .addPrices;
    t.deepEqual(again, { prices: [{ id: first.prices[0].id }], errors: [] });
    const e = await readEvent(eventId);
    t.deepEqual(e.prices.edges, [
      {
        node: {
          id: first.prices[0].id,
          amount: '450.00',
          priceLevel: { name: 'Normal' },
          financialUnit: { name: 'British Pound', __typename: 'Currency', symbol: '£' },
          region: null,
        },
      },
      {
        node: {
          id: memberPrice.prices[0].id,
          amount: '395.50',
          priceLevel: { name: 'Member' },
          financialUnit: { name: 'Euro', __typename: 'Currency', symbol: '€' },
          region: null,
        },
      },
    ]);
    // The REST API shows the same prices.
    const rest = (await f.api('GET', `event/public_events/${ids.blended}`)).json;
    t.deepEqual(
      rest.prices.map((p: { price: number; currency_code: string }) => [p.price, p.currency_code]),
      [
        [450, 'GBP'],
        [395.5, 'EUR'],
      ],
    );
    // The other events have none.
    t.deepEqual((await readEvent(toGlobalId('Event', ids.lms!))).prices.edges, []);
  },
);

test.serial(
  'when a price is refused (no such event, level or currency, a bad amount), then the FieldError names the key sent and nothing is written',
  async (t) => {
    const eventId = toGlobalId('Event', ids.lms!);
    const before = await counts();
    const add = async (vars: Record<string, unknown>) =>
      (await f.data(f.admin, ADD_PRICE, { amount: '10.00', eventId, financialUnitId: GBP, priceLevelId: normal, ...vars })).event.addPrices;
    for (const missing of [toGlobalId('Event', 99999), statistics, 'garbage']) {
      t.deepEqual(await add({ eventId: missing }), {
        prices: null,
        errors: [{ label: 'eventId', message: 'Event not found', value: missing }],
      });
    }
    const bad = await add({
      priceLevelId: toGlobalId('PriceLevel', 99999),
      financialUnitId: Buffer.from('Currency:XXX').toString('base64'),
      amount: '-5',
    });
    t.deepEqual(bad.prices, null);
    t.deepEqual(
      bad.errors.map((e: { label: string; value: unknown }) => [e.label, e.value]),
      [
        ['amount', '-5'],
        ['priceLevelId', toGlobalId('PriceLevel', 99999)],
        ['financialUnitId', Buffer.from('Currency:XXX').toString('base64')],
      ],
    );
    t.deepEqual(
      (await add({ amount: '10.123' })).errors.map((e: { label: string }) => e.label),
      ['amount'],
    );
    // An amount that is no number at all is a mistake in the request itself.
    t.regex(
      (await f.gql(f.admin, ADD_PRICE, { amount: 'ten', eventId, financialUnitId: GBP, priceLevelId: normal })).json.errors[0].message,
      /^Variable "\$amount" got invalid value "ten"; Decimal: "ten" is not a decimal number/,
    );
    t.deepEqual(await counts(), before);
  },
);

const DOWNLOAD = (id: string) => `
            query document {
                downloadDocument (documentId: "${id}") {
                    url
                    document { id name description }
                }
            }`;

test.serial(
  'when a document is downloaded as the WordPress plugin asks (a literal id, no variables), then it answers the address and the document',
  async (t) => {
    const id = toGlobalId('Document', ids.image!);
    const res = await f.gql(f.admin, DOWNLOAD(id));
    t.deepEqual(res.json, {
      data: {
        downloadDocument: {
          url: 'https://cdn.example.com/cb1.png',
          document: { id, name: 'cb1.png', description: 'Statistics course banner' },
        },
      },
    });
    // Ids that name no document here: null, with no error.
    for (const none of [toGlobalId('Document', 99999), statistics, 'garbage'])
      t.deepEqual((await f.gql(f.admin, DOWNLOAD(none))).json, { data: { downloadDocument: null } });
  },
);

test.serial(
  "when another instance's document id is asked for, then this instance answers null; that instance answers its own",
  async (t) => {
    const other = await f.ctx.freshTenant('gcecb');
    const theirs = await withTenant(f.ctx.rt.knex, other, async (db) => {
      // Past this instance's documents, so the number names none here.
      await insertDocument(db, { name: 'first.png', url: 'https://cdn.example.com/first.png' });
      return insertDocument(db, { name: 'secret.png', description: 'Not for others', url: 'https://cdn.example.com/secret.png' });
    });
    const id = toGlobalId('Document', theirs.id);
    t.deepEqual((await f.gql(f.admin, DOWNLOAD(id))).json, { data: { downloadDocument: null } });
    const theirAdmin = await f.tokenFor(other, 'admin');
    t.deepEqual((await f.gql(theirAdmin, DOWNLOAD(id))).json.data.downloadDocument, {
      url: 'https://cdn.example.com/secret.png',
      document: { id, name: 'secret.png', description: 'Not for others' },
    });
    // Nor does that instance (which has no events) reach this one's events to price them.
    const eventId = toGlobalId('Event', ids.blended!);
    const price = (await f.data(theirAdmin, ADD_PRICE, { amount: '1.00', eventId, financialUnitId: GBP, priceLevelId: normal })).event
      .addPrices;
    t.deepEqual(price, { prices: null, errors: [{ label: 'eventId', message: 'Event not found', value: eventId }] });
  },
);

test.serial(
  'permissions: creating needs EVENT_EDIT (and the VIEW of the template named), pricing EVENT_EDIT, downloading a course template or learning path VIEW',
  async (t) => {
    const before = await counts();
    const viewer = await f.tokenFor(f.tenant, 'event-viewer', ['EVENT_VIEW', 'COURSE_TEMPLATE_VIEW']);
    for (const [query, vars] of [
      [CREATE_LMS, lmsVars()],
      [CREATE_BLENDED, blendedVars()],
      [ADD_PRICE, { amount: '1.00', eventId: toGlobalId('Event', ids.lms!), financialUnitId: GBP, priceLevelId: normal }],
    ] as const) {
      const res = await f.gql(viewer, query, vars);
      t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
      t.regex(res.json.errors[0].message, /EVENT_EDIT/);
    }
    const editor = await f.tokenFor(f.tenant, 'event-editor', ['EVENT_VIEW', 'EVENT_EDIT', 'LOCATION_VIEW', 'TAX_TYPE_VIEW']);
    t.regex((await f.gql(editor, CREATE_LMS, lmsVars())).json.errors[0].message, /COURSE_TEMPLATE_VIEW/);
    t.deepEqual(await counts(), before);

    const id = toGlobalId('Document', ids.image!);
    const paths = await f.tokenFor(f.tenant, 'paths', ['LEARNING_PATH_VIEW']);
    t.is((await f.gql(paths, DOWNLOAD(id))).json.data.downloadDocument.url, 'https://cdn.example.com/cb1.png');
    const templates = await f.tokenFor(f.tenant, 'templates', ['COURSE_TEMPLATE_VIEW']);
    t.is((await f.gql(templates, DOWNLOAD(id))).json.data.downloadDocument.document.name, 'cb1.png');
    const eventsOnly = await f.gql(await f.tokenFor(f.tenant, 'events-only', ['EVENT_VIEW']), DOWNLOAD(id));
    t.deepEqual(eventsOnly.json.data, { downloadDocument: null });
    t.is(eventsOnly.json.errors[0].extensions.code, 'FORBIDDEN');
    t.regex(eventsOnly.json.errors[0].message, /COURSE_TEMPLATE_VIEW/);
  },
);
