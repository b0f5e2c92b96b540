import type { Db, Knex } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Course templates (REST "event templates"), their delivery locales, their score mappings and
 * their approved instructors: the only file that names the `course_templates`,
 * `course_template_delivery_locales`, `score_mappings` and `course_template_instructors` tables.
 * Every function takes the transaction first.
 *
 * @uses events: the `courseTemplates` list keeps templates with (or without) events in its one statement
 */

export class CourseTemplate extends BaseModel {
  static override tableName = 'course_templates';

  declare id: number;
  declare code: string | null;
  declare title: string;
  declare course_text1: string | null;
  declare course_text2: string | null;
  declare related_courses_text: string | null;
  declare lms_summary: string | null;
  /** One of LIFECYCLE_STATES. */
  declare lifecycle_state: string;
  declare category_id: number | null;
  /** The primary locale: the language of its own content. */
  declare locale_id: number | null;
  /** For events created without a locale; always one of its delivery locales. */
  declare default_delivery_locale_id: number | null;
  /** A short text a website shows in lists (rich text). */
  declare teaser_description: string | null;
  /** Its image (a document). */
  declare image_document_id: number | null;
  /** A short code, beside the code (Core `shortCode`). */
  declare short_code: string | null;
  /** How its events are delivered: one of EVENT_LEARNING_MODES (classroom, lms, blended). */
  declare event_learning_mode: string;
  /** How its events get their sessions: one of SESSION_LAYOUTS (per_day, single). */
  declare session_layout: string;
  declare created_on: string;
  declare updated_on: string;

  declare deliveryLocales?: CourseTemplateDeliveryLocale[];
  declare scoreMappings?: ScoreMapping[];

  static override get relationMappings() {
    return {
      deliveryLocales: {
        relation: BaseModel.HasManyRelation,
        modelClass: CourseTemplateDeliveryLocale,
        join: { from: 'course_templates.id', to: 'course_template_delivery_locales.course_template_id' },
      },
      scoreMappings: {
        relation: BaseModel.HasManyRelation,
        modelClass: ScoreMapping,
        join: { from: 'course_templates.id', to: 'score_mappings.course_template_id' },
      },
    };
  }
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`event template 7 does not exist`): all the access to the table it gives. */
export const COURSE_TEMPLATE_ROWS = { table: CourseTemplate.tableName, label: 'event template' } as const;

/** A locale a course template can be delivered in (none: no restriction on its events). */
export class CourseTemplateDeliveryLocale extends BaseModel {
  static override tableName = 'course_template_delivery_locales';
  static override get idColumn() {
    return ['course_template_id', 'locale_id'];
  }

  declare course_template_id: number;
  declare locale_id: number;
}

/** A contact approved to teach a course template (Core `approvedInstructors`). */
export class CourseTemplateInstructor extends BaseModel {
  static override tableName = 'course_template_instructors';
  static override get idColumn() {
    return ['course_template_id', 'contact_id'];
  }

  declare course_template_id: number;
  declare contact_id: number;
  declare created_on: string;
}

/** A score delegates of a template's events can be given (REST custom templates). */
export class ScoreMapping extends BaseModel {
  static override tableName = 'score_mappings';

  declare id: number;
  declare course_template_id: number;
  declare label: string;
  /** A key of MAPPING_TYPES. */
  declare type_id: number;
  declare position: number;
}

/** A course template row as the faces read it. */
export type CourseTemplateRow = Pick<
  CourseTemplate,
  | 'id'
  | 'code'
  | 'title'
  | 'course_text1'
  | 'course_text2'
  | 'related_courses_text'
  | 'lms_summary'
  | 'lifecycle_state'
  | 'category_id'
  | 'locale_id'
  | 'default_delivery_locale_id'
  | 'teaser_description'
  | 'image_document_id'
  | 'short_code'
  | 'event_learning_mode'
  | 'session_layout'
  | 'created_on'
  | 'updated_on'
>;

/** The course template, or undefined. */
export async function findCourseTemplate(db: Db, id: number): Promise<CourseTemplateRow | undefined> {
  return CourseTemplate.query(db).findById(id);
}

/** The course template's title, or undefined when there is none. */
export async function courseTemplateTitle(db: Db, id: number): Promise<Pick<CourseTemplate, 'title'> | undefined> {
  return CourseTemplate.query(db).findById(id).select('title');
}

/** What a template passes on to its events: the columns of its row that inheriting reads. */
export async function inheritedTemplate(
  db: Db,
  id: number,
): Promise<Pick<CourseTemplate, 'id' | 'title' | 'locale_id' | 'default_delivery_locale_id' | 'session_layout'> | undefined> {
  return CourseTemplate.query(db).findById(id).select('id', 'title', 'locale_id', 'default_delivery_locale_id', 'session_layout');
}

/** Course templates by id, every column (a page's batch). */
export function courseTemplatesByIds(db: Db, ids: readonly number[]): Promise<CourseTemplateRow[]> {
  return db(CourseTemplate.tableName).whereIn('id', ids as number[]);
}

/** The course template, locked for an update. */
export async function lockCourseTemplate(db: Db, id: number): Promise<CourseTemplateRow | undefined> {
  return CourseTemplate.query(db).findById(id).forUpdate();
}

/** The columns a write sets: a row's, less its id and timestamps. */
export type CourseTemplateColumns = Partial<Omit<CourseTemplateRow, 'id' | 'created_on' | 'updated_on'>>;

export async function insertCourseTemplate(db: Db, columns: CourseTemplateColumns): Promise<CourseTemplateRow> {
  const [row] = (await db(CourseTemplate.tableName).insert(columns).returning('*')) as CourseTemplateRow[];
  return row!;
}

/** Writes the columns given, and the time of the change. */
export async function updateCourseTemplateRow(db: Db, id: number, columns: CourseTemplateColumns): Promise<CourseTemplateRow> {
  const [row] = (await db(CourseTemplate.tableName)
    .where({ id })
    .update({ ...columns, updated_on: utcNow(db) })
    .returning('*')) as CourseTemplateRow[];
  return row!;
}

/** The template's delivery locales. */
export async function deliveryLocaleIds(db: Db, templateId: number): Promise<number[]> {
  const rows = await CourseTemplate.relatedQuery('deliveryLocales', db).for(templateId).select('locale_id');
  return rows.map((r) => r.locale_id);
}

/** Replaces the template's delivery locales with `delivery`. */
export async function replaceDeliveryLocales(db: Db, templateId: number, delivery: number[]): Promise<void> {
  await db(CourseTemplateDeliveryLocale.tableName).where({ course_template_id: templateId }).delete();
  if (delivery.length)
    await db(CourseTemplateDeliveryLocale.tableName).insert(delivery.map((locale_id) => ({ course_template_id: templateId, locale_id })));
}

export type MappingRow = Pick<ScoreMapping, 'id' | 'course_template_id' | 'label' | 'type_id'>;

/** The score mappings of these templates, in their order. */
export async function mappingsOf(db: Db, templateIds: number[]): Promise<MappingRow[]> {
  return ScoreMapping.query(db).whereIn('course_template_id', templateIds).orderBy(['position', 'id']);
}

/** Adds a score mapping to a template, after its last one (for the REST custom template's mappings). */
export async function appendScoreMapping(db: Db, templateId: number, mapping: { label: string; type_id: number }): Promise<void> {
  const position = await db(ScoreMapping.tableName).where({ course_template_id: templateId }).max('position as p').first();
  await db(ScoreMapping.tableName).insert({
    course_template_id: templateId,
    label: mapping.label,
    type_id: mapping.type_id,
    position: ((position?.p as number | null) ?? 0) + 1,
  });
}

/** The delivery locales of these templates, each template's by locale id (a page's batch). */
export function deliveryLocalesOf(
  db: Db,
  templateIds: readonly number[],
): Promise<Pick<CourseTemplateDeliveryLocale, 'course_template_id' | 'locale_id'>[]> {
  return db(CourseTemplateDeliveryLocale.tableName)
    .whereIn('course_template_id', templateIds as number[])
    .orderBy('locale_id');
}

/**
 * Keeps the templates of a list (its rows aliased `t`) whose code or title is `value` (`eq`) or is
 * like it (`like`: SQL wildcards, case-insensitive).
 */
export function whereCodeOrTitle(q: Knex.QueryBuilder, operation: 'eq' | 'like', value: string): void {
  q.where((w) =>
    operation === 'eq' ? w.where('t.code', value).orWhere('t.title', value) : w.whereILike('t.code', value).orWhereILike('t.title', value),
  );
}

/** Keeps the templates of a list (its rows aliased `t`) that the instance's portals list (published: `valid` true), or the others. */
export function whereValidForPortal(q: Knex.QueryBuilder, valid: boolean): void {
  if (valid) q.where('t.lifecycle_state', 'published');
  else q.whereNot('t.lifecycle_state', 'published');
}

/** Keeps the templates of a list (its rows aliased `t`) that have no event (`none` true) or at least one (`none` false). */
export function whereWithoutEvents(q: Knex.QueryBuilder, none: boolean): void {
  const events = (w: Knex.QueryBuilder) => w.select(1).from('events as e').whereRaw('e.course_template_id = t.id');
  if (none) q.whereNotExists(events);
  else q.whereExists(events);
}

/** The approved instructors of these templates, each template's by contact id (a page's batch). */
export function instructorsOf(
  db: Db,
  templateIds: readonly number[],
): Promise<Pick<CourseTemplateInstructor, 'course_template_id' | 'contact_id'>[]> {
  return db(CourseTemplateInstructor.tableName)
    .whereIn('course_template_id', templateIds as number[])
    .orderBy(['course_template_id', 'contact_id'])
    .select('course_template_id', 'contact_id');
}

/** Replaces the template's approved instructors with these contacts. */
export async function replaceInstructors(db: Db, templateId: number, contactIds: readonly number[]): Promise<void> {
  await db(CourseTemplateInstructor.tableName).where({ course_template_id: templateId }).delete();
  if (contactIds.length)
    await db(CourseTemplateInstructor.tableName).insert(contactIds.map((contact_id) => ({ course_template_id: templateId, contact_id })));
}
