import test from 'ava';
import pg from 'pg';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { readInheritance, reinheritEvents } from '../../src/modules/events/events.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { spawnTs, waitFor } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Events in a delivery locale (contract rules 6 and 7), duplicating them, and re-applying a
 * course template to its events in a real worker (rule 8), through real HTTP with real bearer
 * tokens; the worker is killed in the middle of a job once.
 */
let f: GraphQLFixture;
let workers: RunningWorkers | undefined;
let en: string;
let fr: string;
let de: string;
const es = toGlobalId('Locale', 6); // in the catalogue, not supported by this tenant
let location: string;
let taxType: string;

test.serial.before(async () => {
  f = await graphqlFixture('gev', { env: { WORKER_LOCK_MS: '2000', APPLY_BATCH_SIZE: '10' } });
  en = await f.locale(f.tenant, 'en');
  fr = await f.locale(f.tenant, 'fr');
  de = await f.locale(f.tenant, 'de');
  const made = await f.data(
    f.admin,
    `mutation {
    location { create(input: {name: "Riverside Centre", addressTown: "London", addressCountryId: "GB", timeZoneName: "Europe/London"}) { location { id } errors { message } } }
    taxType { create(input: {name: "Standard VAT", rate: 20}) { taxType { id } errors { message } } } }`,
  );
  location = made.location.create.location.id;
  taxType = made.taxType.create.taxType.id;
  for (const [key, label] of [
    ['tagline', 'Tagline'],
    ['audience', 'Audience'],
  ]) {
    const d = await f.data(
      f.admin,
      `mutation { customFieldDefinition { create(input: {key: "${key}", label: "${label}", type: TEXT, appliesTo: COURSE_TEMPLATE, isTranslatable: true}) { errors { message } } } }`,
    );
    if (d.customFieldDefinition.create.errors.length) throw new Error(JSON.stringify(d));
  }
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
});

const EVENT = `id title inheritsTitle inheritsLocale eventType lifecycleState locale { code } timeZoneName classroomStartDateTime classroomEndDateTime startDate
  location { name } taxType { name rate } maxPlaces minPlaces placesBooked courseTemplate { title } customFieldValues { definitionKey value }`;

/** A template in English with a French translation, delivered in en and fr, French by default (the example). */
async function fireSafety(title = 'Fire Safety'): Promise<string> {
  const created = await f.data(
    f.admin,
    `mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } errors { message } } } }`,
    {
      input: {
        title,
        localeId: en,
        deliveryLocaleIds: [en, fr],
        defaultDeliveryLocaleId: fr,
        customFieldValues: [
          { definitionKey: 'tagline', value: 'Stay safe' },
          { definitionKey: 'audience', value: 'Everyone' },
        ],
      },
    },
  );
  const id = created.courseTemplate.create.courseTemplate.id;
  await translate(id, fr, { title: 'Sécurité incendie', customFieldValues: [{ definitionKey: 'tagline', value: 'Restez en sécurité' }] });
  return id;
}
async function translate(id: string, localeId: string, fields: Record<string, unknown>) {
  const d = await f.data(
    f.admin,
    'mutation ($input: CourseTemplateTranslationUpsertInput!) { courseTemplate { upsertTranslation(input: $input) { errors { message } } } }',
    { input: { courseTemplateId: id, localeId, ...fields } },
  );
  if (d.courseTemplate.upsertTranslation.errors.length) throw new Error(JSON.stringify(d));
}
const create = (input: Record<string, unknown>, token = f.admin) =>
  f.gql(
    token,
    `mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { ${EVENT} } errors { label value message } } } }`,
    { input },
  );
async function created(input: Record<string, unknown>) {
  const res = await create(input);
  if (res.json.errors || res.json.data.event.createClassroom.errors.length) throw new Error(res.text);
  return res.json.data.event.createClassroom.event;
}
const base = () => ({
  eventType: 'public',
  timeZoneName: 'Europe/London',
  locationId: location,
  taxTypeId: taxType,
  classroomStartDateTime: '2027-03-10T09:00',
});
const eventCount = () => withTenant(f.ctx.rt.knex, f.tenant, async (db) => Number((await db('events').count('* as n').first())!.n));
const readEvent = async (id: string) =>
  (await f.data(f.admin, `query ($id: ID!) { node(id: $id) { ... on Event { ${EVENT} } } }`, { id })).node;
const values = (e: { customFieldValues: { definitionKey: string; value: string }[] }) =>
  Object.fromEntries(e.customFieldValues.map((v) => [v.definitionKey, v.value]));

test.serial(
  'when an event is created with no locale, then it is in the default delivery locale, with the French title and custom fields, per field falling back',
  async (t) => {
    const tpl = await fireSafety();
    const e = await created({ ...base(), courseTemplateId: tpl, classroomEndDateTime: '2027-03-10T17:00', maxPlaces: 12, minPlaces: 4 });
    t.like(e, {
      title: 'Sécurité incendie',
      inheritsTitle: true,
      inheritsLocale: true,
      locale: { code: 'fr' },
      eventType: 'public',
      lifecycleState: 'published',
    });
    t.deepEqual(values(e), { tagline: 'Restez en sécurité', audience: 'Everyone' });
    t.like(e, {
      timeZoneName: 'Europe/London',
      classroomStartDateTime: '2027-03-10T09:00:00',
      classroomEndDateTime: '2027-03-10T17:00:00',
      startDate: '2027-03-10',
    });
    t.like(e, {
      location: { name: 'Riverside Centre' },
      taxType: { name: 'Standard VAT', rate: 20 },
      maxPlaces: 12,
      minPlaces: 4,
      placesBooked: 0,
      courseTemplate: { title: 'Fire Safety' },
    });
    // The same row through REST.
    const rest = await f.api('GET', `event/public_events/${Buffer.from(e.id, 'base64').toString().split(':')[1]}`);
    t.like(rest.json, { title: 'Sécurité incendie', start_date: '2027-03-10', start_time: '09:00:00', delegates_max: 12 });
  },
);

test.serial(
  "rule 6: an explicit locale wins, explicit null means none, and the chain falls back to the template's own locale",
  async (t) => {
    const tpl = await fireSafety();
    const english = await created({ ...base(), courseTemplateId: tpl, localeId: en });
    t.like(english, { locale: { code: 'en' }, inheritsLocale: false, title: 'Fire Safety' });
    t.deepEqual(values(english), { tagline: 'Stay safe', audience: 'Everyone' });
    const french = await created({ ...base(), courseTemplateId: tpl, localeId: fr });
    t.like(french, { locale: { code: 'fr' }, inheritsLocale: false, title: 'Sécurité incendie' });
    const none = await created({ ...base(), courseTemplateId: tpl, localeId: null });
    t.like(none, { locale: null, inheritsLocale: false, title: 'Fire Safety' });
    // Explicit null written in the document, not in a variable.
    const literal = await f.data(
      f.admin,
      `mutation ($tpl: ID!) { event { createClassroom(input: {courseTemplateId: $tpl, localeId: null, eventType: private, timeZoneName: "UTC"}) { event { locale { code } eventType } errors { message } } } }`,
      { tpl },
    );
    t.deepEqual(literal.event.createClassroom, { event: { locale: null, eventType: 'private' }, errors: [] });
    // No default delivery locale: the template's own locale (c).
    const noDefault = (
      await f.data(
        f.admin,
        'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } } } }',
        { input: { title: 'Ladders', localeId: de, deliveryLocaleIds: [fr] } },
      )
    ).courseTemplate.create.courseTemplate.id;
    t.like(await created({ ...base(), courseTemplateId: noDefault }), { locale: { code: 'de' }, inheritsLocale: true });
    // Neither: no locale.
    const bare = (await f.data(f.admin, 'mutation { courseTemplate { create(input: {title: "Bare"}) { courseTemplate { id } } } }'))
      .courseTemplate.create.courseTemplate.id;
    t.like(await created({ ...base(), courseTemplateId: bare }), { locale: null, title: 'Bare' });
    // No delivery locales: no restriction on a chosen locale.
    t.like(await created({ ...base(), courseTemplateId: bare, localeId: de }), { locale: { code: 'de' } });
    // A default delivery locale the instance stopped supporting is passed over; chosen explicitly, it is refused.
    const it = await f.locale(f.tenant, 'it');
    const italian = (
      await f.data(
        f.admin,
        'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } } } }',
        { input: { title: 'Cranes', localeId: en, deliveryLocaleIds: [en, it], defaultDeliveryLocaleId: it } },
      )
    ).courseTemplate.create.courseTemplate.id;
    t.like(await created({ ...base(), courseTemplateId: italian }), { locale: { code: 'it' } });
    await f.data(f.admin, 'mutation ($id: ID!) { locale { disable(localeId: $id) { errors { message } } } }', { id: it });
    t.like(await created({ ...base(), courseTemplateId: italian }), { locale: { code: 'en' }, inheritsLocale: true });
    const refused = await create({ ...base(), courseTemplateId: italian, localeId: it });
    t.deepEqual(
      refused.json.data.event.createClassroom.errors.map((e: { label: string; message: string }) => [e.label, e.message]),
      [['localeId', 'Provided locale is not supported']],
    );
  },
);

test.serial('the two locale messages of the contract, with the label localeId, and nothing written', async (t) => {
  const tpl = await fireSafety();
  const before = await eventCount();
  const outside = await create({ ...base(), courseTemplateId: tpl, localeId: de });
  t.deepEqual(outside.json.data.event.createClassroom, {
    event: null,
    errors: [{ label: 'localeId', value: de, message: "Locale is not one of the Course Template's delivery languages" }],
  });
  for (const id of [es, 'not-an-id', toGlobalId('CourseTemplate', 1)]) {
    const unsupported = await create({ ...base(), courseTemplateId: tpl, localeId: id });
    t.deepEqual(
      unsupported.json.data.event.createClassroom.errors,
      [{ label: 'localeId', value: id, message: 'Provided locale is not supported' }],
      id,
    );
  }
  t.is(await eventCount(), before);
});

test.serial('rule 7: a translation without a title gives the base title; an untranslated locale gives the base content', async (t) => {
  const tpl = await fireSafety('Manual Handling');
  await translate(tpl, fr, {
    courseText1: '<p>Soulever sans se blesser.</p>',
    customFieldValues: [{ definitionKey: 'audience', value: 'Tout le monde' }],
  });
  const e = await created({ ...base(), courseTemplateId: tpl });
  t.like(e, { locale: { code: 'fr' }, title: 'Manual Handling' });
  t.deepEqual(values(e), { tagline: 'Stay safe', audience: 'Tout le monde' });
  // A title translated as a deliberate blank: an event needs a title, so it takes the base one (docs/graphql.md).
  await translate(tpl, fr, { title: '' });
  t.like(await created({ ...base(), courseTemplateId: tpl }), { locale: { code: 'fr' }, title: 'Manual Handling' });
});

test.serial('bad input gets FieldErrors naming the field, and nothing is written', async (t) => {
  const tpl = await fireSafety();
  const before = await eventCount();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ timeZoneName: 'Mars/Olympus' }, 'timeZoneName', /IANA time zone/],
    [{ timeZoneName: '+01:00' }, 'timeZoneName', /IANA time zone/],
    [{ classroomStartDateTime: '2027-03-10T09:00:00Z' }, 'classroomStartDateTime', /without a zone/],
    [{ classroomStartDateTime: '2027-02-30T09:00' }, 'classroomStartDateTime', /without a zone/],
    [{ classroomEndDateTime: '2027-03-10T08:00' }, 'classroomEndDateTime', /after classroomStartDateTime/],
    [{ classroomEndDateTime: '2027-03-10T09:00:00' }, 'classroomEndDateTime', /after classroomStartDateTime/],
    [{ classroomEndDateTime: '2027-03-10 09:00:00.000' }, 'classroomEndDateTime', /after classroomStartDateTime/],
    [{ locationId: toGlobalId('Location', 999999) }, 'locationId', /Location not found/],
    [{ taxTypeId: location }, 'taxTypeId', /Tax Type not found/],
    [{ courseTemplateId: toGlobalId('CourseTemplate', 999999) }, 'courseTemplateId', /Course Template not found/],
    [{ maxPlaces: 5, minPlaces: 6 }, 'minPlaces', /must not exceed maxPlaces/],
    [{ title: '' }, 'title', /1 to 255/],
  ];
  for (const [change, label, message] of cases) {
    const res = await create({ ...base(), courseTemplateId: tpl, ...change });
    const errors = res.json.data.event.createClassroom.errors as { label: string; message: string }[];
    t.deepEqual(
      errors.map((e) => e.label),
      [label],
      JSON.stringify(change),
    );
    t.regex(errors[0]!.message, message);
  }
  const untitled = await create({ ...base() });
  t.deepEqual(
    untitled.json.data.event.createClassroom.errors.map((e: { label: string }) => e.label),
    ['title'],
  );
  const badType = await create({ ...base(), eventType: 'secret' });
  t.regex(badType.json.errors[0].message, /EventType/);
  t.is(await eventCount(), before);
  // A zone is stored as the caller named it, its case corrected; current names stay current (ICU would say Europe/Kiev).
  t.is((await created({ ...base(), courseTemplateId: tpl, timeZoneName: 'europe/paris' })).timeZoneName, 'Europe/Paris');
  t.is((await created({ ...base(), courseTemplateId: tpl, timeZoneName: 'Europe/Kyiv' })).timeZoneName, 'Europe/Kyiv');
  t.is(
    (await created({ ...base(), courseTemplateId: tpl, timeZoneName: 'Asia/Kolkata', classroomEndDateTime: '2027-03-10T09:00:01' }))
      .timeZoneName,
    'Asia/Kolkata',
  );
});

test.serial('permissions: creating needs EVENT_EDIT, reading EVENT_VIEW, re-applying COURSE_TEMPLATE_EDIT and EVENT_EDIT', async (t) => {
  const viewer = await f.tokenFor(f.tenant, 'viewer');
  const res = await create({ ...base() }, viewer);
  t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(res.json.errors[0].message, /EVENT_EDIT/);
  const templatesOnly = await f.tokenFor(f.tenant, 'templates', ['COURSE_TEMPLATE_VIEW', 'COURSE_TEMPLATE_EDIT']);
  t.is((await f.gql(templatesOnly, '{ events { edges { node { id } } } }')).json.errors[0].extensions.code, 'FORBIDDEN');
  const apply = await f.gql(
    templatesOnly,
    'mutation ($id: ID!) { courseTemplate { applyToEvents(courseTemplateId: $id) { errors { message } } } }',
    { id: toGlobalId('CourseTemplate', 1) },
  );
  t.regex(apply.json.errors[0].message, /EVENT_EDIT/);
  const noTemplates = await f.tokenFor(f.tenant, 'events', ['EVENT_VIEW']);
  t.regex((await f.gql(noTemplates, '{ backgroundJob(id: "x") { state } }')).json.errors[0].message, /COURSE_TEMPLATE_VIEW/);

  // Records reached through an event need their own VIEW permission, as they would directly.
  const tpl = await fireSafety('Permit Safety');
  await created({ ...base(), courseTemplateId: tpl, code: 'PERMIT-1' });
  const eventsOnly = await f.gql(
    noTemplates,
    '{ events(filters: [{field: code, operation: eq, value: "PERMIT-1"}]) { edges { node { title courseTemplate { title } location { name } taxType { name } } } } }',
  );
  t.deepEqual(
    new Set(eventsOnly.json.errors.map((e: { extensions: { permission: string } }) => e.extensions.permission)),
    new Set(['COURSE_TEMPLATE_VIEW', 'LOCATION_VIEW', 'TAX_TYPE_VIEW']),
  );
  t.deepEqual(eventsOnly.json.data.events.edges[0].node, {
    title: 'Sécurité incendie',
    courseTemplate: null,
    location: null,
    taxType: null,
  });
  // Creating an event from a template copies the template's content: it needs COURSE_TEMPLATE_VIEW beside EVENT_EDIT.
  const eventEditor = await f.tokenFor(f.tenant, 'event-editor', ['EVENT_VIEW', 'EVENT_EDIT']);
  const before = await eventCount();
  const refused = await create({ ...base(), courseTemplateId: tpl }, eventEditor);
  t.is(refused.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(refused.json.errors[0].message, /COURSE_TEMPLATE_VIEW/);
  t.is(await eventCount(), before);
  const plain = await create({ eventType: 'public', timeZoneName: 'Europe/London', title: 'Open day' }, eventEditor);
  t.deepEqual(plain.json.data.event.createClassroom.errors, []);
});

const apply = async (templateId: string, eventIds?: string[]) => {
  const d = await f.data(
    f.admin,
    'mutation ($id: ID!, $events: [ID!]) { courseTemplate { applyToEvents(courseTemplateId: $id, eventIds: $events) { backgroundJob { id state total } errors { label message } } } }',
    { id: templateId, events: eventIds ?? null },
  );
  return d.courseTemplate.applyToEvents;
};
const JOB = 'id state progress total processed errors { eventId message } startedOn finishedOn';
const finished = (jobId: string) =>
  waitFor(
    async () => {
      const job = (await f.data(f.admin, `query ($id: ID!) { backgroundJob(id: $id) { ${JOB} } }`, { id: jobId })).backgroundJob;
      return job.state === 'completed' || job.state === 'failed' ? job : undefined;
    },
    `background job ${jobId}`,
    30000,
  );

test.serial(
  'rule 8 in the worker: re-applying re-inherits each event in its own language; chosen titles and locales stay; duplicates keep their locale',
  async (t) => {
    workers ??= startWorkers(f.ctx.rt);
    const tpl = await fireSafety('Working at Height');
    const inherits = await created({ ...base(), courseTemplateId: tpl });
    const english = await created({ ...base(), courseTemplateId: tpl, localeId: en });
    const titled = await created({ ...base(), courseTemplateId: tpl, title: 'Height, the London run' });
    const none = await created({ ...base(), courseTemplateId: tpl, localeId: null });
    const dup = (
      await f.data(
        f.admin,
        'mutation ($id: ID!) { event { duplicate(eventId: $id) { event { id locale { code } inheritsLocale title } errors { message } } } }',
        { id: inherits.id },
      )
    ).event.duplicate;
    t.deepEqual(dup.errors, []);
    t.like(dup.event, { locale: { code: 'fr' }, inheritsLocale: false, title: 'Sécurité incendie' });

    // The template changes: a new French title and tagline, a new English title; then German becomes the default.
    await translate(tpl, fr, {
      title: 'Travail en hauteur',
      customFieldValues: [{ definitionKey: 'tagline', value: 'Prudence en hauteur' }],
    });
    await f.data(
      f.admin,
      'mutation ($id: ID!) { courseTemplate { update(courseTemplateId: $id, input: {title: "Working at Height (2027)"}) { errors { message } } } }',
      { id: tpl },
    );
    const { backgroundJob, errors } = await apply(tpl);
    t.deepEqual(errors, []);
    t.like(backgroundJob, { state: 'queued', total: 5 });
    const job = await finished(backgroundJob.id);
    t.like(job, { state: 'completed', progress: 100, total: 5, processed: 5, errors: [] });
    t.truthy(job.startedOn && job.finishedOn);
    const after = async (id: string) => {
      const e = await readEvent(id);
      return { locale: e.locale?.code ?? null, title: e.title, ...values(e) };
    };
    t.deepEqual(await after(inherits.id), {
      locale: 'fr',
      title: 'Travail en hauteur',
      tagline: 'Prudence en hauteur',
      audience: 'Everyone',
    });
    t.deepEqual(await after(dup.event.id), {
      locale: 'fr',
      title: 'Travail en hauteur',
      tagline: 'Prudence en hauteur',
      audience: 'Everyone',
    });
    t.deepEqual(await after(english.id), { locale: 'en', title: 'Working at Height (2027)', tagline: 'Stay safe', audience: 'Everyone' });
    t.deepEqual(await after(titled.id), {
      locale: 'fr',
      title: 'Height, the London run',
      tagline: 'Prudence en hauteur',
      audience: 'Everyone',
    });
    t.deepEqual(await after(none.id), { locale: null, title: 'Working at Height (2027)', tagline: 'Stay safe', audience: 'Everyone' });

    // The delivery default moves to English: a cascading locale follows it, the duplicate stays French.
    await f.data(
      f.admin,
      'mutation ($id: ID!, $en: ID!) { courseTemplate { update(courseTemplateId: $id, input: {defaultDeliveryLocaleId: $en}) { errors { message } } } }',
      { id: tpl, en },
    );
    const second = await apply(tpl, [inherits.id, dup.event.id]);
    t.like(await finished(second.backgroundJob.id), { state: 'completed', total: 2, processed: 2 });
    t.deepEqual(await after(inherits.id), { locale: 'en', title: 'Working at Height (2027)', tagline: 'Stay safe', audience: 'Everyone' });
    t.deepEqual(await after(dup.event.id), {
      locale: 'fr',
      title: 'Travail en hauteur',
      tagline: 'Prudence en hauteur',
      audience: 'Everyone',
    });
  },
);

test.serial(
  'applyToEvents refuses events of another template and templates that do not exist, and runs twice to the same result',
  async (t) => {
    workers ??= startWorkers(f.ctx.rt);
    const tpl = await fireSafety('Asbestos Awareness');
    const other = await fireSafety('Confined Spaces');
    const mine = await created({ ...base(), courseTemplateId: tpl });
    const theirs = await created({ ...base(), courseTemplateId: other });
    const refused = await apply(tpl, [mine.id, theirs.id, 'garbage']);
    t.is(refused.backgroundJob, null);
    t.deepEqual(
      refused.errors.map((e: { label: string }) => e.label),
      ['eventIds[1]', 'eventIds[2]'],
    );
    t.deepEqual((await apply(toGlobalId('CourseTemplate', 999999))).errors, [
      { label: 'courseTemplateId', message: 'Course Template not found' },
    ]);

    const snapshot = () =>
      withTenant(f.ctx.rt.knex, f.tenant, async (db) => ({
        events: await db('events')
          .where({ course_template_id: Buffer.from(tpl, 'base64').toString().split(':')[1] })
          .orderBy('id')
          .select('id', 'title', 'locale_id', 'locale_cascades', 'title_cascades'),
        values: await db('event_field_values')
          .whereIn(
            'event_id',
            db('events')
              .where({ course_template_id: Buffer.from(tpl, 'base64').toString().split(':')[1] })
              .select('id'),
          )
          .orderBy(['event_id', 'definition_id'])
          .select('event_id', 'definition_id', 'locale_id', 'value'),
      }));
    await translate(tpl, fr, { title: 'Sensibilisation amiante' });
    await finished((await apply(tpl)).backgroundJob.id);
    const once = await snapshot();
    t.is(once.events[0].title, 'Sensibilisation amiante');
    await finished((await apply(tpl)).backgroundJob.id);
    t.deepEqual(await snapshot(), once);
  },
);

/**
 * A job re-applying a new template (French title `frenchTitle`) to 60 events, and a worker
 * process (batches of 10) that is held inside the batch holding event `blockedIndex`: another
 * session has that row locked until `release()`.
 */
async function heldApplyJob(title: string, frenchTitle: string, blockedIndex: number) {
  await workers?.close();
  workers = undefined;
  const tpl = await fireSafety(title);
  const templateId = Number(Buffer.from(tpl, 'base64').toString().split(':')[1]);
  const ids: number[] = await withTenant(f.ctx.rt.knex, f.tenant, async (db) =>
    (
      await db('events')
        .insert(Array.from({ length: 60 }, (_, i) => ({ course_template_id: templateId, title: `Old title ${i}`, title_cascades: true })))
        .returning('id')
    ).map((r: { id: number }) => r.id),
  );
  await translate(tpl, fr, { title: frenchTitle });
  const { backgroundJob } = await apply(tpl);
  const jobId = Number(Buffer.from(backgroundJob.id, 'base64').toString().split(':')[1]);
  const processed = () =>
    withTenant(
      f.ctx.rt.knex,
      f.tenant,
      async (db) => (await db('background_jobs').where({ id: jobId }).first('processed', 'state')) as { processed: number; state: string },
    );
  const blocker = new pg.Client({ connectionString: f.ctx.rt.databaseUrl });
  await blocker.connect();
  await blocker.query('begin');
  await blocker.query(`select 1 from ${f.tenant.schema}.events where id = $1 for update`, [ids[blockedIndex]]);
  const config = f.ctx.rt.config;
  const worker = spawnTs('workers/main.ts', [], {
    DATABASE_URL: f.ctx.rt.databaseUrl,
    REDIS_URL: config.redisUrl,
    QUEUE_PREFIX: config.queuePrefix,
    WORKER_LOCK_MS: '2000',
    APPLY_BATCH_SIZE: '10',
    OUTBOX_SWEEP_MS: '200',
  });
  const release = async () => {
    await blocker.query('rollback').catch(() => undefined);
    await blocker.end().catch(() => undefined);
  };
  return { ids, backgroundJob, processed, worker, release };
}

test.serial(
  'when the worker is killed in the middle of a job, then the next worker resumes after the last committed batch and every event is done once',
  async (t) => {
    // Another session holds the 35th event: the worker commits three batches of 10 and waits in the fourth.
    const { ids, backgroundJob, processed, worker, release } = await heldApplyJob('Forklift Safety', 'Sécurité chariot élévateur', 34);
    try {
      await waitFor(async () => (await processed()).processed === 30, 'three batches committed', 30000);
      await new Promise((r) => setTimeout(r, 300));
      t.like(await processed(), { processed: 30, state: 'running' });
      worker.child.kill('SIGKILL');
      await worker.done;
    } finally {
      worker.child.kill('SIGKILL');
      await release();
    }
    workers = startWorkers(f.ctx.rt);
    const job = await finished(backgroundJob.id);
    t.like(job, { state: 'completed', total: 60, processed: 60, errors: [] });
    const rows = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => ({
      titles: await db('events').whereIn('id', ids).distinct('title').pluck('title'),
      values: await db('event_field_values')
        .whereIn('event_id', ids)
        .groupBy('event_id')
        .select(db.raw('count(*)::int as n'))
        .then((r: { n: number }[]) => [...new Set(r.map((x) => x.n))]),
    }));
    t.deepEqual(rows, { titles: ['Sécurité chariot élévateur'], values: [2] });
  },
);

test.serial(
  'when the worker is asked to stop in the middle of a job, then it hands the job back after the batch in hand, exits, and the next worker finishes it',
  async (t) => {
    // The worker commits one batch of 10 and waits in the second, on a row another session holds.
    const { ids, backgroundJob, processed, worker, release } = await heldApplyJob('Ladder Safety', 'Sécurité des échelles', 14);
    let exit;
    try {
      await waitFor(async () => (await processed()).processed === 10, 'one batch committed', 30000);
      await new Promise((r) => setTimeout(r, 300));
      worker.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      await release();
      exit = await worker.done;
    } finally {
      worker.child.kill('SIGKILL');
      await release();
    }
    t.is(exit.code, 0, exit.stderr);
    // The batch in hand finished; the rest was left for the next worker, not done before exiting.
    t.like(await processed(), { processed: 20, state: 'running' });
    workers = startWorkers(f.ctx.rt);
    const job = await finished(backgroundJob.id);
    t.like(job, { state: 'completed', total: 60, processed: 60, errors: [] });
    const titles = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').whereIn('id', ids).distinct('title').pluck('title'));
    t.deepEqual(titles, ['Sécurité des échelles']);
  },
);

test.serial(
  'a batch that copies more custom field values than one statement takes parameters for still re-inherits every event',
  async (t) => {
    const tpl = await fireSafety('Scaffold Safety');
    const templateId = Number(Buffer.from(tpl, 'base64').toString().split(':')[1]);
    const copied = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const defs = await db('custom_field_definitions')
        .insert(
          Array.from({ length: 18 }, (_, i) => ({ key: `bulk_${i}`, label: `Bulk ${i}`, type: 'text', applies_to: 'course_template' })),
        )
        .returning('id');
      await db('course_template_field_values').insert(
        defs.map((d: { id: number }) => ({ course_template_id: templateId, definition_id: d.id, value: `v${d.id}` })),
      );
      const ids = (
        await db('events')
          .insert(Array.from({ length: 1000 }, (_, i) => ({ course_template_id: templateId, title: `Run ${i}`, title_cascades: true })))
          .returning('id')
      ).map((r: { id: number }) => r.id);
      // 1,000 events x 20 values: 80,000 parameters as one plain multi-row INSERT.
      const done = await reinheritEvents(db, (await readInheritance(db, templateId))!, ids);
      return { done: done.length, values: Number((await db('event_field_values').whereIn('event_id', ids).count('* as n').first())!.n) };
    });
    t.deepEqual(copied, { done: 1000, values: 20000 });
  },
);

test.serial(
  'another instance reaches none of it: events, duplicates and background jobs of this instance are not found there',
  async (t) => {
    const tpl = await fireSafety('Isolation Safety');
    const event = await created({ ...base(), courseTemplateId: tpl });
    const { backgroundJob } = await apply(tpl, [event.id]);
    const other = await f.ctx.freshTenant('gevb');
    const theirs = await f.tokenFor(other, 'admin');
    const seen = await f.data(
      theirs,
      'query ($e: ID!, $j: ID!) { node(id: $e) { id } backgroundJob(id: $j) { id } events { edges { node { id } } } }',
      { e: event.id, j: backgroundJob.id },
    );
    t.deepEqual(seen, { node: null, backgroundJob: null, events: { edges: [] } });
    const dup = await f.data(theirs, 'mutation ($e: ID!) { event { duplicate(eventId: $e) { event { id } errors { label message } } } }', {
      e: event.id,
    });
    t.deepEqual(dup.event.duplicate, { event: null, errors: [{ label: 'eventId', message: 'Event not found' }] });
    const applied = await f.data(
      theirs,
      'mutation ($id: ID!) { courseTemplate { applyToEvents(courseTemplateId: $id) { backgroundJob { id } errors { label message } } } }',
      { id: tpl },
    );
    t.is(applied.courseTemplate.applyToEvents.backgroundJob, null);
    t.is(applied.courseTemplate.applyToEvents.errors[0].label, 'courseTemplateId');
    t.is(await withTenant(f.ctx.rt.knex, other, async (db) => Number((await db('events').count('* as n').first())!.n)), 0);
  },
);
