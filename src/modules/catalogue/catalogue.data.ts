import type { Db, Knex } from '../../platform/db/knex.js';
import { Category, type CategoryCard } from '../categories/index.js';
import { Location } from '../locations/index.js';
import type { EventRow } from '../events/index.js';
import { CategoryTranslation, translationsOfOwners, translationTableOf, type TranslatableKind } from '../translations/index.js';

/**
 * The public catalogue (WebLink's read model, as real websites call it): published course
 * templates (WebLink `Course`), active learning paths, published public events that are not
 * cancelled (of published templates or none), categories, locations, and the locales content can
 * be asked in. Read-only: nothing here writes. Each list is one statement with the joins, scopes
 * and filters it needs (a filter "via events" is an `exists` on the listed events of a course or
 * of a path's event objectives); what a page shows of other records is read by their owners'
 * functions, a batch per kind.
 *
 * @uses course_templates, learning_paths, events, learning_path_objectives, delegates, course_template_field_values, learning_path_field_values, custom_field_definitions: the catalogue page is one statement: published templates and active paths as one list, filtered by their events (places left counted as placesBooked counts them) and custom field values
 * @uses categories, category_translations, locations: the WebLink category and location lists are read in the content locale with the category's translation joined, one statement a page, through their owners' models
 */

/** Where a kind of record keeps its translations, and which of its columns they overlay. */
export interface Overlay<C extends string = string> {
  kind: TranslatableKind;
  table: string;
  owner: string;
  columns: readonly C[];
}

const TEMPLATE_TEXTS = ['title', 'course_text1', 'teaser_description'] as const;
const PATH_TEXTS = ['name', 'description'] as const;

export const TEMPLATE_TRANSLATIONS: Overlay<(typeof TEMPLATE_TEXTS)[number]> = {
  kind: 'course_template',
  ...translationTableOf('course_template'),
  columns: TEMPLATE_TEXTS,
};
export const PATH_TRANSLATIONS: Overlay<(typeof PATH_TEXTS)[number]> = {
  kind: 'learning_path',
  ...translationTableOf('learning_path'),
  columns: PATH_TEXTS,
};

/** One translation of a record: its locale and the columns it overlays (null: not translated). */
export interface TranslationRow {
  owner: number;
  locale_id: number;
  name: string | null;
  description: string | null;
  /** A course's only (null for a learning path). */
  teaser_description: string | null;
}

/**
 * What the catalogue shows of a course template or learning path, under the names WebLink gives
 * them (`name` is a template's title, `description` its course_text1), and, on a page read with
 * a content locale, their translations there as `tr_name`, `tr_description` and (a course's)
 * `tr_teaser_description` (null: none).
 */
export interface CatalogueText {
  id: number;
  locale_id: number | null;
  name: string;
  description: string | null;
  teaser_description?: string | null;
  tr_name?: string | null;
  tr_description?: string | null;
  tr_teaser_description?: string | null;
}

export interface CatalogueCourse extends CatalogueText {
  code: string | null;
  category_id: number | null;
  image_document_id: number | null;
}

export interface CataloguePath extends CatalogueText {
  code: string | null;
  lifecycle_state: string;
  is_bundle: boolean;
  category_id: number | null;
  image_document_id: number | null;
}

/** A row of the `catalogue` list: a course template or a learning path. */
export type WebLinkCatalogueItemUnion = (CatalogueCourse & { kind: 'CourseTemplate' }) | (CataloguePath & { kind: 'LearningPath' });

/** An event as the catalogue reads it (`select *`). */
export type CatalogueEvent = EventRow;

/** The events WebLink lists: published, public, not cancelled, of published templates or none. */
function listedEvents(q: Knex.QueryBuilder, alias: string): Knex.QueryBuilder {
  return q.where({ [`${alias}.lifecycle_state`]: 'published', [`${alias}.type`]: 'public', [`${alias}.is_cancelled`]: false }).where((w) =>
    w.whereNull(`${alias}.course_template_id`).orWhereExists((e) =>
      e
        .select(1)
        .from('course_templates as lct')
        .whereRaw('lct.id = ??', [`${alias}.course_template_id`])
        .where('lct.lifecycle_state', 'published'),
    ),
  );
}

/** Course template columns under their catalogue names. */
const COURSE_COLUMNS = (alias: string) => [
  `${alias}.id`,
  `${alias}.code`,
  `${alias}.title as name`,
  `${alias}.course_text1 as description`,
  `${alias}.teaser_description`,
  `${alias}.category_id`,
  `${alias}.image_document_id`,
  `${alias}.locale_id`,
];

/**
 * A list of the catalogue as the list engine reads it (kit/graphql/lists.ts, aliased `t`): its
 * table or the rows it lists, and the scope that keeps only what is public.
 */
export interface CatalogueList {
  table: string;
  from?: (db: Db) => Knex.QueryBuilder;
  scope?: (q: Knex.QueryBuilder) => void;
}

export const CATALOGUE_LISTS = {
  catalogue: {
    table: 'catalogue',
    from: (db) =>
      db('course_templates as ct')
        .select(db.raw(`'CourseTemplate' as kind`), ...COURSE_COLUMNS('ct'), db.raw('ct.lifecycle_state'), db.raw('false as is_bundle'))
        .where('ct.lifecycle_state', 'published')
        .unionAll((u) =>
          u
            .from('learning_paths as lp')
            .select(
              db.raw(`'LearningPath'`),
              'lp.id',
              'lp.code',
              'lp.name',
              'lp.description',
              db.raw('null'),
              'lp.category_id',
              'lp.image_document_id',
              'lp.locale_id',
              'lp.lifecycle_state',
              'lp.is_bundle',
            )
            .where('lp.lifecycle_state', 'active'),
        ),
  },
  courses: { table: 'course_templates', scope: (q) => q.where('t.lifecycle_state', 'published') },
  learningPaths: { table: 'learning_paths', scope: (q) => q.where('t.lifecycle_state', 'active') },
  events: { table: 'events', scope: (q) => listedEvents(q, 't') },
  categories: { table: Category.tableName },
  locations: { table: Location.tableName },
} satisfies Record<string, CatalogueList>;

/** The `courses` page's columns under their catalogue names (besides `t.*`). */
export function courseNames(q: Knex.QueryBuilder): void {
  q.select('t.title as name', 't.course_text1 as description');
}

/** A record's translation in `localeId` left-joined as `alias` to the rows aliased `owner` (of `kind` only, in the catalogue's union). */
function joinTranslation(db: Db, q: Knex.QueryBuilder, o: Overlay, alias: string, owner: string, localeId: number, kind?: string): void {
  q.leftJoin(`${o.table} as ${alias}`, (j) => {
    j.on(`${alias}.${o.owner}`, `${owner}.id`).andOn(`${alias}.locale_id`, db.raw('?', [localeId]));
    if (kind) j.andOn(`${owner}.kind`, db.raw('?', [kind]));
  });
}
/** A course template's translated columns under their catalogue names, from its translation joined as `trc`. */
const TEMPLATE_TRANSLATED = [
  'trc.title as tr_name',
  'trc.course_text1 as tr_description',
  'trc.teaser_description as tr_teaser_description',
];

/**
 * A list's rows come with their translation in the content locale (`tr_name`, `tr_description`),
 * joined in the page's one statement, so overlaying costs no more statements. Without a content
 * locale the statement is the one it always was (the list does not call this).
 */
export function withTranslation(db: Db, q: Knex.QueryBuilder, list: 'catalogue' | 'courses' | 'learningPaths', localeId: number): void {
  const joinOf = (o: Overlay, alias: string, kind?: string) => joinTranslation(db, q, o, alias, 't', localeId, kind);
  if (list === 'courses') {
    joinOf(TEMPLATE_TRANSLATIONS, 'trc');
    q.select(...TEMPLATE_TRANSLATED);
  } else if (list === 'learningPaths') {
    joinOf(PATH_TRANSLATIONS, 'trl');
    q.select('trl.name as tr_name', 'trl.description as tr_description', db.raw('null as tr_teaser_description'));
  } else {
    joinOf(TEMPLATE_TRANSLATIONS, 'trc', 'CourseTemplate');
    joinOf(PATH_TRANSLATIONS, 'trl', 'LearningPath');
    q.select(
      db.raw('coalesce(trc.title, trl.name) as tr_name'),
      db.raw('coalesce(trc.course_text1, trl.description) as tr_description'),
      'trc.teaser_description as tr_teaser_description',
    );
  }
}

/**
 * A category as the catalogue shows it; read with a content locale, with its translation there
 * as `tr_name` and `tr_introduction` (null: none).
 */
export interface CatalogueCategory extends CategoryCard {
  tr_name?: string | null;
  tr_introduction?: string | null;
}

/** The `categories` page's rows with their translation in the content locale, joined in the page's one statement. */
export function withCategoryTranslation(db: Db, q: Knex.QueryBuilder, localeId: number): void {
  q.leftJoin(`${CategoryTranslation.tableName} as trg`, (j) =>
    j.on('trg.category_id', 't.id').andOn('trg.locale_id', db.raw('?', [localeId])),
  );
  q.select('trg.name as tr_name', 'trg.introduction as tr_introduction');
}

/**
 * Categories by id with their translation in `localeId` (one statement: what a page read with a
 * content locale shows of its records' categories and parents). Without a content locale the
 * catalogue reads them with categoriesByIds, as it always did.
 */
export function categoriesInLocale(db: Db, ids: readonly number[], localeId: number): Promise<CatalogueCategory[]> {
  return db(`${Category.tableName} as c`)
    .leftJoin(`${CategoryTranslation.tableName} as trg`, (j) =>
      j.on('trg.category_id', 'c.id').andOn('trg.locale_id', db.raw('?', [localeId])),
    )
    .whereIn('c.id', ids as number[])
    .select('c.*', 'trg.name as tr_name', 'trg.introduction as tr_introduction');
}

/** The translations of these records (a record reached from another: an event's course), each record's by locale, under catalogue names. */
export async function translationsOf(
  db: Db,
  kind: 'course_template' | 'learning_path',
  ownerIds: readonly number[],
): Promise<Map<number, TranslationRow[]>> {
  const o = kind === 'course_template' ? TEMPLATE_TRANSLATIONS : PATH_TRANSLATIONS;
  const rows = (await translationsOfOwners(db, kind, ownerIds)) as unknown as Record<string, string | number | null>[];
  return groupedBy(
    rows.map((r) => ({
      owner: r[o.owner] as number,
      locale_id: r.locale_id as number,
      name: r[o.columns[0]!] as string | null,
      description: r[o.columns[1]!] as string | null,
      teaser_description: (r.teaser_description ?? null) as string | null,
    })),
    (r) => r.owner,
  );
}

/** Rows grouped by the record they belong to, in the order they were read. */
function groupedBy<R>(rows: R[], ownerOf: (row: R) => number): Map<number, R[]> {
  const groups = new Map<number, R[]>();
  for (const r of rows) {
    const owner = ownerOf(r);
    const list = groups.get(owner);
    if (list) list.push(r);
    else groups.set(owner, [r]);
  }
  return groups;
}

/** The kinds of record whose custom field values the catalogue shows. */
export type FieldValueOwner = 'course_template' | 'learning_path';

/** Published course templates by id, under catalogue names (those not published are missing). */
export function publishedCoursesByIds(db: Db, ids: readonly number[]): Promise<CatalogueCourse[]> {
  return db('course_templates as c')
    .whereIn('c.id', ids as number[])
    .where('c.lifecycle_state', 'published')
    .select(COURSE_COLUMNS('c'));
}

/**
 * Published course templates by id with their translation in `localeId` joined (`tr_name`,
 * `tr_description`, `tr_teaser_description`; null: none), one statement: what a page read with a
 * content locale shows of the courses its events and objectives name, with no second statement
 * for their translations.
 */
export function publishedCoursesInLocale(db: Db, ids: readonly number[], localeId: number): Promise<CatalogueCourse[]> {
  const q = db('course_templates as c')
    .whereIn('c.id', ids as number[])
    .where('c.lifecycle_state', 'published')
    .select(...COURSE_COLUMNS('c'), ...TEMPLATE_TRANSLATED);
  joinTranslation(db, q, TEMPLATE_TRANSLATIONS, 'trc', 'c', localeId);
  return q;
}

/** Listed events by id (those not listed are missing). */
export function listedEventsByIds(db: Db, ids: readonly number[]): Promise<CatalogueEvent[]> {
  return listedEvents(db('events as e').whereIn('e.id', ids as number[]), 'e').select('e.*');
}

// --- Filters ------------------------------------------------------------------------------------

/** An event's start and end as instants: its classroom (else online) period, else its dates, in its time zone. */
const eventStart = (a: string) =>
  `(coalesce(${a}.classroom_start, ${a}.lms_start, ${a}.start_date::timestamp) at time zone coalesce(${a}.time_zone_name, 'UTC'))`;
const eventEnd = (a: string) =>
  `(coalesce(${a}.classroom_end, ${a}.lms_end, ${a}.end_date::timestamp) at time zone coalesce(${a}.time_zone_name, 'UTC'))`;
/** Places left on an event (null max: unlimited), booked as placesBooked counts them. */
const placesLeft = (a: string) =>
  `${a}.delegates_max - coalesce((select sum(coalesce(d.num_places, 1)) from delegates d where d.event_id = ${a}.id and d.cancelled_date is null), 0)`;

/**
 * Conditions on one event: a listed event of a catalogue item (`viaEvents`, aliased `ev`, the
 * default) or a row of the `events` list (`t`).
 */
export const eventConditions = {
  /** Starts on one of these ISO days of the week (1 Monday ... 7 Sunday). */
  onDays: (w: Knex.QueryBuilder, days: number[], a = 'ev') =>
    w.whereRaw(`extract(isodow from coalesce(${a}.start_date, ${a}.classroom_start::date, ${a}.lms_start::date))::int = any(?)`, [days]),
  atLocations: (w: Knex.QueryBuilder, ids: number[], a = 'ev') => w.whereIn(`${a}.location_id`, ids),
  startsFrom: (w: Knex.QueryBuilder, instant: string, a = 'ev') => w.whereRaw(`${eventStart(a)} >= ?::timestamptz`, [instant]),
  startsBy: (w: Knex.QueryBuilder, instant: string, a = 'ev') => w.whereRaw(`${eventStart(a)} <= ?::timestamptz`, [instant]),
  endsFrom: (w: Knex.QueryBuilder, instant: string, a = 'ev') => w.whereRaw(`${eventEnd(a)} >= ?::timestamptz`, [instant]),
  endsBy: (w: Knex.QueryBuilder, instant: string, a = 'ev') => w.whereRaw(`${eventEnd(a)} <= ?::timestamptz`, [instant]),
  sessionStartsFrom: (w: Knex.QueryBuilder, time: string, a = 'ev') =>
    w.whereRaw(`coalesce(${a}.start_time, ${a}.classroom_start::time) >= ?::time`, [time]),
  sessionEndsBy: (w: Knex.QueryBuilder, time: string, a = 'ev') =>
    w.whereRaw(`coalesce(${a}.end_time, ${a}.classroom_end::time) <= ?::time`, [time]),
  placesAtLeast: (w: Knex.QueryBuilder, n: number, a = 'ev') =>
    w.where((p) => p.whereNull(`${a}.delegates_max`).orWhereRaw(`${placesLeft(a)} >= ?`, [n])),
  /** Of a course with one of these codes (an event without a course: its own code). */
  ofCourseCodes: (w: Knex.QueryBuilder, codes: string[], a = 'ev') =>
    w.where((c) =>
      c
        .whereExists((e) =>
          e.select(1).from('course_templates as cc').whereRaw(`cc.id = ${a}.course_template_id`).whereIn('cc.code', codes),
        )
        .orWhere((o) => o.whereNull(`${a}.course_template_id`).whereIn(`${a}.code`, codes)),
    ),
};

/** A catalogue item with a listed event (of a course; of a path's event objectives) that meets all `conditions`. */
export function viaEvents(q: Knex.QueryBuilder, conditions: (w: Knex.QueryBuilder) => void): void {
  q.where((w) =>
    w
      .where((c) =>
        c.where('t.kind', 'CourseTemplate').whereExists((e) => {
          listedEvents(e.select(1).from('events as ev').whereRaw('ev.course_template_id = t.id'), 'ev');
          conditions(e);
        }),
      )
      .orWhere((p) =>
        p.where('t.kind', 'LearningPath').whereExists((e) => {
          listedEvents(
            e
              .select(1)
              .from('learning_path_objectives as o')
              .join('events as ev', 'ev.id', 'o.event_id')
              .whereRaw('o.learning_path_id = t.id'),
            'ev',
          );
          conditions(e);
        }),
      ),
  );
}

const ESCAPE_LIKE = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `search`: the text in the name or the code, case-insensitive (wildcards in it are literal). */
export function matchesSearch(q: Knex.QueryBuilder, text: string): void {
  const pattern = `%${ESCAPE_LIKE(text)}%`;
  q.where((w) => w.whereRaw(`t.name ilike ? escape '\\'`, [pattern]).orWhereRaw(`t.code ilike ? escape '\\'`, [pattern]));
}

/**
 * A custom field filter: the item's authored value of the definition (named by id or key) is
 * `value` (`eq`), matches it (`like`), or is one of `values` (`in`).
 */
export function hasFieldValue(
  q: Knex.QueryBuilder,
  definition: { id?: number; key: string },
  operation: 'eq' | 'like' | 'in',
  value: string | string[],
): void {
  const match = (v: Knex.QueryBuilder) => {
    v.whereNull('v.locale_id').whereIn('v.definition_id', (d) => {
      d.select('cfd.id').from('custom_field_definitions as cfd').where('cfd.key', definition.key);
      if (definition.id !== undefined) d.orWhere('cfd.id', definition.id);
    });
    if (operation === 'eq') v.where('v.value', value as string);
    else if (operation === 'like') v.whereRaw('v.value ilike ?', [value]);
    else v.whereIn('v.value', value as string[]);
  };
  q.where((w) =>
    w
      .where((c) =>
        c
          .where('t.kind', 'CourseTemplate')
          .whereExists((e) => match(e.select(1).from('course_template_field_values as v').whereRaw('v.course_template_id = t.id'))),
      )
      .orWhere((c) =>
        c
          .where('t.kind', 'LearningPath')
          .whereExists((e) => match(e.select(1).from('learning_path_field_values as v').whereRaw('v.learning_path_id = t.id'))),
      ),
  );
}

// --- The Core API's catalogue -------------------------------------------------------------------

/** The kinds of record the Core API's catalogue lists, as its union names them. */
export type CoreCatalogueKind = 'CourseTemplate' | 'LearningPath';

/**
 * A row of the Core API's `catalogue` list: what it filters and orders on, under the catalogue's
 * names (`name` is a template's title). The face shows the whole record, read by id through
 * its module.
 */
export interface CoreCatalogueRow {
  kind: CoreCatalogueKind;
  id: number;
  code: string | null;
  name: string;
  lifecycle_state: string;
  is_bundle: boolean;
  category_id: number | null;
  created_on: string;
  updated_on: string;
}

/**
 * The Core API's catalogue: every course template and learning path as one list, whatever their
 * lifecycle state (the Core API is the instance's own view, not the public one; who may see
 * which kind is the face's scope, {@link ofKinds}). The columns of {@link CoreCatalogueRow}.
 */
export const CORE_CATALOGUE = {
  table: 'catalogue',
  from: (db) =>
    db('course_templates as ct')
      .select(
        db.raw(`'CourseTemplate' as kind`),
        'ct.id',
        'ct.code',
        'ct.title as name',
        'ct.lifecycle_state',
        db.raw('false as is_bundle'),
        'ct.category_id',
        'ct.created_on',
        'ct.updated_on',
      )
      .unionAll((u) =>
        u
          .from('learning_paths as lp')
          .select(
            db.raw(`'LearningPath'`),
            'lp.id',
            'lp.code',
            'lp.name',
            'lp.lifecycle_state',
            'lp.is_bundle',
            'lp.category_id',
            'lp.created_on',
            'lp.updated_on',
          ),
      ),
} satisfies CatalogueList;

/** Only items of these kinds (none: nothing). */
export function ofKinds(q: Knex.QueryBuilder, kinds: readonly CoreCatalogueKind[]): void {
  q.whereIn('t.kind', kinds as CoreCatalogueKind[]);
}

/** Items that are one of these (`negate`: none of these), each named by its kind and id. */
export function isOneOf(q: Knex.QueryBuilder, items: readonly { kind: CoreCatalogueKind; id: number }[], negate = false): void {
  const any = (w: Knex.QueryBuilder) => {
    if (!items.length) w.whereRaw('false');
    for (const item of items) w.orWhere((o) => o.where('t.kind', item.kind).where('t.id', item.id));
  };
  if (negate) q.whereNot(any);
  else q.where(any);
}
