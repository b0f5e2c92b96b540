import crypto from 'node:crypto';
import http from 'node:http';
import Koa from 'koa';
import pg from 'pg';

/**
 * The baseline of `npm run bench -- graphql`: a bare Koa handler answering the benchmark's
 * `courseTemplates(first: 50)` query (and, with `x-bench-query: sdk`, the PHP SDK's page; with
 * `contacts` or `events` and `x-bench-first: <page size>`, the clients' people pages) with the same JSON, read by one hand-written SQL query per
 * request (after the same bearer-token check), in a transaction with the tenant's search_path,
 * with none of Lectern's machinery: no GraphQL parsing, validation or resolvers, no loaders.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const schema = process.env.BENCH_SCHEMA!;

const QUERY = `
select json_build_object('data', json_build_object('courseTemplates', json_build_object(
  'edges', coalesce((select json_agg(json_build_object('node', json_build_object(
      'id', encode(convert_to('CourseTemplate:' || t.id, 'UTF8'), 'base64'),
      'title', t.title,
      'courseText1', t.course_text1,
      'locale', (select json_build_object('code', l.code) from locales l where l.id = t.locale_id),
      'translations', coalesce((select json_agg(json_build_object(
          'locale', json_build_object('code', l.code),
          'title', tr.title,
          'courseText1', tr.course_text1,
          'translatedFields', to_json(array_remove(array[case when tr.title is not null then 'title' end, case when tr.course_text1 is not null then 'courseText1' end,
            case when tr.course_text2 is not null then 'courseText2' end, case when tr.related_courses_text is not null then 'relatedCoursesText' end,
            case when tr.lms_summary is not null then 'lmsSummary' end, case when tr.teaser_description is not null then 'teaserDescription' end], null)),
          'customFieldValues', coalesce((select json_agg(json_build_object('definitionKey', d.key, 'value', coalesce(tv.value, v.value)) order by d.id)
            from course_template_field_values v join custom_field_definitions d on d.id = v.definition_id
            left join course_template_field_values tv on tv.course_template_id = v.course_template_id and tv.definition_id = v.definition_id and tv.locale_id = tr.locale_id
            where v.course_template_id = t.id and v.locale_id is null and not d.is_builtin), '[]'::json)
        ) order by tr.locale_id) from course_template_translations tr join locales l on l.id = tr.locale_id where tr.course_template_id = t.id), '[]'::json),
      'customFieldValues', coalesce((select json_agg(json_build_object('definitionKey', d.key, 'value', v.value) order by d.id)
        from course_template_field_values v join custom_field_definitions d on d.id = v.definition_id
        where v.course_template_id = t.id and v.locale_id is null and not d.is_builtin), '[]'::json)
    )) order by t.id) from (select * from course_templates order by id limit 50) t), '[]'::json),
  'pageInfo', json_build_object('totalRecords', (select count(*) from course_templates))
)))::text as body`;

/**
 * The PHP SDK's `courseTemplates` page (25 by name, with image, gallery, categories, public
 * prices and custom field values), as Lectern answers it: ids are base64 of `<Type>:<id>`, the
 * gallery is the image, amounts are strings with the stored digits, the currency's name is
 * Intl's English name (only the bench's GBP is needed here).
 */
const gid = (type: string, expr: string) => `encode(convert_to('${type}:' || ${expr}, 'UTF8'), 'base64')`;
const SDK_QUERY = `
select json_build_object('data', json_build_object('courseTemplates', json_build_object(
  'pageInfo', json_build_object('startCursor', case when p.n > 0 then encode(convert_to('cursor:0', 'UTF8'), 'base64') end,
    'endCursor', case when p.n > 0 then encode(convert_to('cursor:' || (p.n - 1), 'UTF8'), 'base64') end,
    'totalRecords', p.total, 'hasNextPage', p.n < p.total, 'hasPreviousPage', false),
  'edges', p.edges
)))::text as body
from (
  select count(*)::int as n, coalesce(max(total), (select count(*) from course_templates))::int as total,
    coalesce(json_agg(json_build_object('node', json_build_object(
      'id', ${gid('CourseTemplate', 't.id')}, 'legacyId', t.id, 'lifecycleState', t.lifecycle_state, 'code', t.code, 'title', t.title,
      'image', (select json_build_object('id', ${gid('Document', 'd.id')}, 'name', d.name, 'description', d.description,
          'folder', case when d.folder is null then null else json_build_object('id', ${gid('Folder', 'd.folder')}, 'name', d.folder) end)
        from documents d where d.id = t.image_document_id),
      'imageGallery', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object('id', ${gid('Document', 'd.id')}, 'name', d.name, 'description', d.description)))
        from documents d where d.id = t.image_document_id), '[]'::json)),
      'learningCategories', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object('id', ${gid('LearningCategory', 'c.id')}, 'legacyId', c.id, 'name', c.name)))
        from categories c where c.id = t.category_id), '[]'::json)),
      'publicPrices', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object(
          'id', ${gid('Price', 'pr.id')}, 'amount', pr.amount::text,
          'priceLevel', json_build_object('id', ${gid('PriceLevel', 'l.id')}, 'legacyId', l.id, 'name', l.name),
          'financialUnit', json_build_object('name', case pr.currency_code when 'GBP' then 'British Pound' else pr.currency_code end, '__typename', 'Currency'),
          'region', case when r.id is null then null else json_build_object('id', ${gid('Region', 'r.id')}, 'name', r.name, 'code', r.code,
            'company', (select json_build_object('id', ${gid('Company', 'co.id')}, 'name', co.name) from companies co where co.id = r.company_id)) end
        )) order by pr.price_level_id, r.id nulls first, pr.currency_code, pr.id)
        from prices pr join price_levels l on l.id = pr.price_level_id left join regions r on r.id = pr.region_id where pr.course_template_id = t.id), '[]'::json)),
      'customFieldValues', coalesce((select json_agg(json_build_object('definitionKey', d.key, 'definitionLocator', ${gid('CustomFieldDefinition', 'd.id')}, 'value', v.value) order by d.id)
        from course_template_field_values v join custom_field_definitions d on d.id = v.definition_id
        where v.course_template_id = t.id and v.locale_id is null and not d.is_builtin), '[]'::json)
    )) order by t.title, t.id), '[]'::json) as edges
  from (select *, count(*) over () as total from course_templates order by title asc nulls last, id asc limit 25) t
) p`;

/** A local date-time `local` of an event (its zone, else UTC) as the Core API's instant: `2027-03-10T09:00:00Z`. */
const instant = (local: string, zone: string) =>
  `to_char((${local} at time zone coalesce(${zone}, 'UTC')) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
/** Event.start: the earlier of its classroom and online starts, else its start date and time (events.rules.ts localPeriod). */
const EVENT_START = instant(
  `coalesce(least(e.classroom_start, e.lms_start), e.start_date + coalesce(e.start_time, time '00:00'))`,
  'e.time_zone_name',
);
/** A timestamptz as the Core API's instant. */
const utc = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
/** A page's endCursor: `cursor:<offset of its last record>`, base64. */
const endCursor = (n: string) => `case when ${n} > 0 then encode(convert_to('cursor:' || (${n} - 1), 'UTF8'), 'base64') end`;
/** Nested lists answer their default page: 20 records (kit/graphql/lists.ts DEFAULT_PAGE). */
const NESTED_PAGE = 20;

/**
 * The contacts page the WordPress and acted clients read (real-clients.md section 5.B): `$1`
 * contacts by id, each with its account and its active learners' events (learners by id, the
 * nested default page), and the page's hasNextPage, endCursor and total.
 */
const CONTACTS_QUERY = `
select json_build_object('data', json_build_object('contacts', json_build_object(
  'edges', p.edges,
  'pageInfo', json_build_object('hasNextPage', p.n < p.total, 'endCursor', ${endCursor('p.n')}, 'totalRecords', p.total)
)))::text as body
from (
  select count(*)::int as n, coalesce(max(total), (select count(*) from contacts))::int as total,
    coalesce(json_agg(json_build_object('node', json_build_object(
      'id', ${gid('Contact', 'c.id')}, 'legacyId', c.id, 'firstName', c.first_name, 'lastName', c.last_name,
      'emailAddress', c.email, 'isInstructor', c.is_tutor,
      'account', (select json_build_object('id', ${gid('Account', 'a.id')}, 'name', a.name) from companies a where a.id = c.company_id),
      'learners', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object(
          'id', ${gid('Learner', 'd.id')},
          'event', (select json_build_object('id', ${gid('Event', 'e.id')}, 'code', e.code, 'title', e.title, 'start', ${EVENT_START})
            from events e where e.id = d.event_id)
        )) order by d.id)
        from (select * from delegates d where d.contact_id = c.id and d.cancelled_date is null order by d.id limit ${NESTED_PAGE}) d), '[]'::json))
    )) order by c.id), '[]'::json) as edges
  from (select *, count(*) over () as total from contacts order by id limit $1) c
) p`;

/**
 * The event page with its sessions (start order, with their venue), staff (in the order added,
 * with their contact) and learners (by id, with their contact's e-mail address): `$1` events by
 * id, each nested list its default page.
 */
const EVENTS_QUERY = `
select json_build_object('data', json_build_object('events', json_build_object('edges', coalesce(json_agg(json_build_object('node', json_build_object(
  'id', ${gid('Event', 'e.id')}, 'title', e.title,
  'sessions', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object(
      'id', ${gid('Session', 's.id')}, 'title', s.title, 'start', ${utc('s.starts_at')}, 'end', ${utc('s.ends_at')},
      'lifecycleState', s.lifecycle_state,
      'venue', (select json_build_object('id', ${gid('Venue', 'v.id')}, 'name', v.name) from venues v where v.id = s.venue_id)
    )) order by s.starts_at, s.id)
    from (select * from sessions s where s.event_id = e.id order by s.starts_at, s.id limit ${NESTED_PAGE}) s), '[]'::json)),
  'staff', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object(
      'id', ${gid('Staff', 'st.id')}, 'staffType', st.staff_type, 'isPrimary', st.is_primary,
      'contact', (select json_build_object('id', ${gid('Contact', 'c.id')}, 'firstName', c.first_name, 'lastName', c.last_name) from contacts c where c.id = st.contact_id)
    )) order by st.id)
    from (select * from event_staff st where st.event_id = e.id order by st.id limit ${NESTED_PAGE}) st), '[]'::json)),
  'learners', json_build_object('edges', coalesce((select json_agg(json_build_object('node', json_build_object(
      'id', ${gid('Learner', 'd.id')}, 'lifecycleState', case when d.cancelled_date is null then 'active' else 'cancelled' end,
      'contact', (select json_build_object('id', ${gid('Contact', 'c.id')}, 'emailAddress', c.email) from contacts c where c.id = d.contact_id)
    )) order by d.id)
    from (select * from delegates d where d.event_id = e.id and d.contact_id is not null order by d.id limit ${NESTED_PAGE}) d), '[]'::json))
)) order by e.id), '[]'::json))))::text as body
from (select * from events order by id limit $1) e`;

/** The statement of each `x-bench-query` (none: the first query), and whether it takes the page size (`x-bench-first`) as `$1`. */
const QUERIES: Record<string, { sql: string; paged?: boolean }> = {
  '': { sql: QUERY },
  sdk: { sql: SDK_QUERY },
  contacts: { sql: CONTACTS_QUERY, paged: true },
  events: { sql: EVENTS_QUERY, paged: true },
};

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path !== '/graphql' || ctx.method !== 'POST') return;
  const token = /^Bearer (.+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
  const c = await pool.connect();
  try {
    await c.query(`begin; select set_config('search_path', '${schema}', true)`);
    const auth = await c.query(
      'select 1 from platform.oauth_tokens where access_token_hash = $1 and revoked_at is null and access_expires_at > now()',
      [crypto.createHash('sha256').update(token).digest('hex')],
    );
    if (!auth.rowCount) {
      ctx.status = 401;
      await c.query('commit');
      return;
    }
    const query = QUERIES[ctx.get('x-bench-query')];
    if (!query) throw new Error(`x-bench-query: no query ${ctx.get('x-bench-query')}`);
    const { rows } = await c.query(query.sql, query.paged ? [Number(ctx.get('x-bench-first'))] : []);
    await c.query('commit');
    ctx.type = 'application/json';
    ctx.body = rows[0].body;
  } catch (e) {
    await c.query('rollback');
    throw e;
  } finally {
    c.release();
  }
});

process.on('SIGTERM', () => process.exit(0));
http.createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1');
