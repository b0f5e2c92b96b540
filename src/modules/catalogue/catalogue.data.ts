import type { Db, Knex } from '../../platform/db/knex.js';
import { Category } from '../categories/categories.data.js';
import { courseTemplatesByIds, type CourseTemplate } from '../course-templates/course-templates.data.js';
import { valuesOf, valueTableOf, type FieldValueRow } from '../custom-fields/custom-fields.data.js';
import type { Event } from '../events/events.data.js';
import type { LearningPathRecord } from '../learning-paths/learning-paths.data.js';
import { locationRowsByIds, type Location } from '../locations/locations.data.js';
import { translationsOfOwners, translationTableOf } from '../translations/translations.data.js';
import type { TranslatableKind } from '../translations/translations.rules.js';

/**
 * The public catalogue (WebLink's read model): published course templates, learning paths,
 * published public events that are not cancelled, categories, and the locales content can be
 * asked in, each with what it shows of other records (translations, custom field values,
 * locations). Read-only: nothing here writes. Its statements read other modules' tables, each
 * list in one statement with the joins and scopes it needs (categories, locales and custom field
 * values are read through their owners' functions).
 *
 * @uses course_templates, events, learning_paths: the public catalogue reads published content in one statement per list (with its translations joined, through the translations module's table names)
 */

/** Where a kind of record keeps its translations, and which of its columns they overlay. */
export interface Overlay<C extends string = string> {
  kind: TranslatableKind;
  table: string;
  owner: string;
  columns: readonly C[];
}

const TEMPLATE_TEXTS = ['title', 'course_text1', 'course_text2', 'related_courses_text', 'lms_summary'] as const;
const PATH_TEXTS = ['name', 'description'] as const;
export type TemplateText = (typeof TEMPLATE_TEXTS)[number];
export type PathText = (typeof PATH_TEXTS)[number];

export const TEMPLATE_TRANSLATIONS: Overlay<TemplateText> = { kind: 'course_template', ...translationTableOf('course_template'), columns: TEMPLATE_TEXTS };
export const PATH_TRANSLATIONS: Overlay<PathText> = { kind: 'learning_path', ...translationTableOf('learning_path'), columns: PATH_TEXTS };

/**
 * Texts that translations overlay: the authored value of each column, and on a list's rows read
 * with a content locale its translation there as `tr_<column>` (null: none).
 */
export type Translatable<C extends string> = { id: number; locale_id: number | null } & Record<C, string | null> & Partial<Record<`tr_${C}`, string | null>>;

/** One translation of a record: its locale and the columns it overlays (null: not translated). */
export type TranslationRow<C extends string> = { locale_id: number } & Record<C, string | null>;

/** A course template as the catalogue reads it (`select *`: the columns the catalogue shows). */
export type CatalogueTemplate = Pick<CourseTemplate, 'id' | 'code' | 'lifecycle_state' | 'category_id' | 'locale_id' | TemplateText> & Partial<Record<`tr_${TemplateText}`, string | null>>;

export type CatalogueLearningPath = Pick<LearningPathRecord, 'id' | 'locale_id' | PathText> & Partial<Record<`tr_${PathText}`, string | null>>;

/** An event as the catalogue reads it (`select *`: the columns the catalogue shows). */
export type CatalogueEvent = Pick<
  Event,
  | 'id'
  | 'course_template_id'
  | 'code'
  | 'title'
  | 'locale_id'
  | 'start_date'
  | 'end_date'
  | 'classroom_start'
  | 'classroom_end'
  | 'time_zone_name'
  | 'location_id'
  | 'price'
  | 'currency_code'
  | 'delegates_max'
>;

export type CatalogueLocation = Pick<Location, 'id' | 'name' | 'address_town' | 'address_country_id'>;

/** The kinds of record whose custom field values the catalogue shows. */
export type FieldValueOwner = 'course_template' | 'learning_path';

/**
 * A list of the catalogue as the list engine reads it (kit/graphql/lists.ts, the table aliased
 * `t`): its table, and the scope that keeps only what is public.
 */
export interface CatalogueList {
  table: string;
  scope?: (q: Knex.QueryBuilder) => void;
}

/** The events WebLink lists: published, public, not cancelled. */
const listedEvents = (q: Knex.QueryBuilder, alias: string) => q.where({ [`${alias}.lifecycle_state`]: 'published', [`${alias}.type`]: 'public', [`${alias}.is_cancelled`]: false });

export const CATALOGUE_LISTS = {
  courseTemplates: { table: 'course_templates', scope: (q) => q.where('t.lifecycle_state', 'published') },
  learningPaths: { table: 'learning_paths' },
  events: {
    table: 'events',
    scope: (q) =>
      listedEvents(q, 't').where((w) =>
        w.whereNull('t.course_template_id').orWhereExists((e) => e.select(1).from('course_templates as ct').whereRaw('ct.id = t.course_template_id').where('ct.lifecycle_state', 'published')),
      ),
  },
  categories: { table: Category.tableName },
} satisfies Record<string, CatalogueList>;

/**
 * A list's rows come with their translation in the content locale (`tr_<column>`), joined in
 * the page's one query, so overlaying costs no more statements and no more awaits. Without a
 * content locale the query is the one it always was (the list does not call this).
 */
export function withTranslation(db: Db, q: Knex.QueryBuilder, o: Overlay, localeId: number): void {
  q.leftJoin(`${o.table} as tr`, (j) => j.on('tr.' + o.owner, 't.id').andOn('tr.locale_id', db.raw('?', [localeId])));
  q.select(o.columns.map((c) => `tr.${c} as tr_${c}`));
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

/** The translations of these records (a record reached from another: an event's course template), each record's by locale. */
export async function translationsOf<C extends string>(db: Db, o: Overlay<C>, ownerIds: readonly number[]): Promise<Map<number, TranslationRow<C>[]>> {
  const rows = (await translationsOfOwners(db, o.kind, ownerIds)) as unknown as (TranslationRow<C> & Record<string, number>)[];
  return groupedBy(rows, (r) => r[o.owner]!);
}

/** The custom field values of these records (every locale), each record's grouped (its owner's statement). */
export async function fieldValuesOf(db: Db, kind: FieldValueOwner, ownerIds: readonly number[]): Promise<Map<number, FieldValueRow[]>> {
  const { owner } = valueTableOf(kind);
  // Each value row carries its owner column (course_template_id, learning_path_id).
  return groupedBy(await valuesOf(db, kind, [...ownerIds]), (r) => (r as unknown as Record<string, number>)[owner]!);
}

/** Course templates by id, whatever their state (the face hides those not published). */
export const templatesByIds = (db: Db, ids: readonly number[]): Promise<CatalogueTemplate[]> => courseTemplatesByIds(db, ids);

/** Locations by id. */
export const locationsByIds = (db: Db, ids: readonly number[]): Promise<CatalogueLocation[]> => locationRowsByIds(db, ids);

/** Each template's listed events, soonest first, at most `perTemplate` each, in one statement for a page of templates. */
export async function listedEventsOf(db: Db, templateIds: readonly number[], perTemplate: number): Promise<Map<number, CatalogueEvent[]>> {
  const ranked = listedEvents(db('events as e').whereIn('e.course_template_id', templateIds as number[]), 'e').select(
    'e.*',
    db.raw('row_number() over (partition by e.course_template_id order by e.start_date, e.id) as rank'),
  );
  const rows: CatalogueEvent[] = await db.from(ranked.as('r')).where('r.rank', '<=', perTemplate).orderBy(['r.course_template_id', 'r.rank']);
  return groupedBy(rows, (r) => r.course_template_id!);
}
