import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';
import type { AppliesTo, CustomFieldType, DefinitionValues, ValueKind, ValueOwner } from './custom-fields.rules.js';

/**
 * Custom fields: definitions, and their values on course templates, learning paths and events,
 * one table of values per kind of record (deleting the record deletes its values). The only
 * file that names these tables.
 */

export class CustomFieldDefinition extends BaseModel {
  static override tableName = 'custom_field_definitions';

  declare id: number;
  /** The definitionKey values name it by; cannot change. */
  declare key: string;
  declare label: string;
  /** What the field is for, as the Core API's customFieldTemplate shows it (migration 013). */
  declare description: string | null;
  declare type: CustomFieldType;
  declare applies_to: AppliesTo;
  declare is_translatable: boolean;
  /** A built-in course description field: its value is a courseText column of the template. */
  declare is_builtin: boolean;
  declare max_length: number | null;
  /** RE2 syntax. */
  declare pattern: string | null;
  declare created_on: string;
  declare updated_on: string;
}

export type DefinitionRow = ModelObject<CustomFieldDefinition>;

/** A value of a custom field on a record: with no locale the base value, with one its translation. */
class FieldValueRecord extends BaseModel {
  declare id: number;
  declare definition_id: number;
  declare locale_id: number | null;
  declare value: string;

  declare definition?: CustomFieldDefinition;

  static definitionRelation(table: string) {
    return {
      definition: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: CustomFieldDefinition,
        join: { from: `${table}.definition_id`, to: 'custom_field_definitions.id' },
      },
    };
  }
}

export type FieldValueRow = ModelObject<FieldValueRecord>;

export class CourseTemplateFieldValue extends FieldValueRecord {
  static override tableName = 'course_template_field_values';
  declare course_template_id: number;
  static override get relationMappings() {
    return FieldValueRecord.definitionRelation(CourseTemplateFieldValue.tableName);
  }
}

export class LearningPathFieldValue extends FieldValueRecord {
  static override tableName = 'learning_path_field_values';
  declare learning_path_id: number;
  static override get relationMappings() {
    return FieldValueRecord.definitionRelation(LearningPathFieldValue.tableName);
  }
}

export class EventFieldValue extends FieldValueRecord {
  static override tableName = 'event_field_values';
  declare event_id: number;
  static override get relationMappings() {
    return FieldValueRecord.definitionRelation(EventFieldValue.tableName);
  }
}

const VALUE_TABLES: Record<ValueKind, { table: string; owner: string }> = {
  course_template: { table: CourseTemplateFieldValue.tableName, owner: 'course_template_id' },
  learning_path: { table: LearningPathFieldValue.tableName, owner: 'learning_path_id' },
  event: { table: EventFieldValue.tableName, owner: 'event_id' },
};

/** The table of one kind of record's values and its owner column (for a face's per-request loader). */
export function valueTableOf(kind: ValueKind): { table: string; owner: string } {
  return VALUE_TABLES[kind];
}

const kindOf = (owner: ValueKind | ValueOwner): ValueKind => {
  const kind = typeof owner === 'string' ? owner : owner.appliesTo;
  if (kind === 'session') throw new Error("a session's custom field values are the events module's (session_field_values)");
  return kind;
};

// --- Definitions ----------------------------------------------------------------------------

export function definitionById(db: Db, id: number): Promise<DefinitionRow | undefined> {
  return db(CustomFieldDefinition.tableName).where({ id }).first<DefinitionRow | undefined>();
}

export async function definitionKeyTaken(db: Db, key: string): Promise<boolean> {
  return (await db(CustomFieldDefinition.tableName).where({ key }).first('id')) !== undefined;
}

export async function insertDefinition(db: Db, d: DefinitionValues): Promise<DefinitionRow> {
  const [row] = await db(CustomFieldDefinition.tableName)
    .insert({
      key: d.key,
      label: d.label,
      description: d.description ?? null,
      type: d.type,
      applies_to: d.appliesTo,
      is_translatable: d.isTranslatable,
      max_length: d.maxLength ?? null,
      pattern: d.pattern ?? null,
    })
    .returning('*');
  return row as DefinitionRow;
}

/** Stores what may change of a definition: its label, description, translatability and validation. */
export async function updateDefinition(db: Db, id: number, d: DefinitionValues): Promise<DefinitionRow> {
  const [row] = await db(CustomFieldDefinition.tableName)
    .where({ id })
    .update({
      label: d.label,
      description: d.description ?? null,
      is_translatable: d.isTranslatable,
      max_length: d.maxLength ?? null,
      pattern: d.pattern ?? null,
      updated_on: utcNow(db),
    })
    .returning('*');
  return row as DefinitionRow;
}

/** Whether any record has a translated value of the definition. */
export async function hasTranslatedValues(db: Db, kind: AppliesTo, definitionId: number): Promise<boolean> {
  if (kind === 'session') return false;
  return (await db(VALUE_TABLES[kind].table).where({ definition_id: definitionId }).whereNotNull('locale_id').first('id')) !== undefined;
}

// --- Values ---------------------------------------------------------------------------------

/** The values of some records of one kind, every locale (each row with its owner column). */
export function valuesOf(db: Db, kind: ValueKind, ownerIds: number[]): Promise<FieldValueRow[]> {
  const vt = VALUE_TABLES[kind];
  return db(vt.table).whereIn(vt.owner, ownerIds).orderBy('id');
}

/**
 * Sets base values; other base values stay. null removes a value, with its translations (a
 * translation needs a base value).
 */
export async function writeBaseValues(
  db: Db,
  owner: ValueKind | ValueOwner,
  ownerId: number,
  values: { def: { id: number }; value: string | null }[],
): Promise<void> {
  const vt = VALUE_TABLES[kindOf(owner)];
  for (const { def, value } of values) {
    if (value === null)
      await db(vt.table)
        .where({ [vt.owner]: ownerId, definition_id: def.id })
        .delete();
    else {
      const updated = await db(vt.table)
        .where({ [vt.owner]: ownerId, definition_id: def.id })
        .whereNull('locale_id')
        .update({ value });
      if (!updated) await db(vt.table).insert({ [vt.owner]: ownerId, definition_id: def.id, locale_id: null, value });
    }
  }
}

/** Replaces one locale's translated values with `values` (translations replace, not patch). */
export async function replaceTranslatedValues(
  db: Db,
  owner: ValueKind | ValueOwner,
  ownerId: number,
  localeId: number,
  values: { def: { id: number }; value: string | null }[],
): Promise<void> {
  const vt = VALUE_TABLES[kindOf(owner)];
  await db(vt.table)
    .where({ [vt.owner]: ownerId, locale_id: localeId })
    .delete();
  const rows = values
    .filter((v) => v.value !== null)
    .map((v) => ({ [vt.owner]: ownerId, definition_id: v.def.id, locale_id: localeId, value: v.value }));
  if (rows.length) await db(vt.table).insert(rows);
}

export async function deleteTranslatedValues(db: Db, owner: ValueKind | ValueOwner, ownerId: number, localeId: number): Promise<void> {
  const vt = VALUE_TABLES[kindOf(owner)];
  await db(vt.table)
    .where({ [vt.owner]: ownerId, locale_id: localeId })
    .delete();
}

// --- What events take from their course template (contract rules 7 and 8) ------------------

/** A course template's values of its own (not built-in) custom fields: base values, and translations by locale. */
export function inheritableTemplateValues(
  db: Db,
  templateId: number,
): Promise<Pick<FieldValueRow, 'definition_id' | 'locale_id' | 'value'>[]> {
  return db(`${CourseTemplateFieldValue.tableName} as v`)
    .join(`${CustomFieldDefinition.tableName} as d`, 'd.id', 'v.definition_id')
    .where({ 'v.course_template_id': templateId, 'd.is_builtin': false })
    .orderBy('v.definition_id')
    .select('v.definition_id', 'v.locale_id', 'v.value');
}

/** Replaces the values events inherited (those of course template fields) with `values`; their own event fields stay. */
export async function replaceInheritedEventValues(
  db: Db,
  eventIds: number[],
  values: { event_id: number; definition_id: number; value: string }[],
): Promise<void> {
  if (!eventIds.length) return;
  await db(EventFieldValue.tableName)
    .whereIn('event_id', eventIds)
    .whereIn('definition_id', db(CustomFieldDefinition.tableName).where({ applies_to: 'course_template' }).select('id'))
    .delete();
  // One parameter whatever the number of rows (a statement takes at most 65,535 parameters).
  if (values.length) {
    await db.raw(
      `insert into event_field_values (event_id, definition_id, locale_id, value)
       select x.event_id, x.definition_id, null, x.value from json_to_recordset(?::json) as x(event_id int, definition_id int, value text)`,
      [JSON.stringify(values)],
    );
  }
}

/** Copies every value of one event (base and translated) to another (a duplicate). */
export async function copyEventValues(db: Db, fromEventId: number, toEventId: number): Promise<void> {
  await db.raw(
    `insert into event_field_values (event_id, definition_id, locale_id, value)
     select ?, definition_id, locale_id, value from event_field_values where event_id = ?`,
    [toEventId, fromEventId],
  );
}

/** Every custom field definition of the tenant, by id. */
export function allDefinitionRows(db: Db): Promise<DefinitionRow[]> {
  return db(CustomFieldDefinition.tableName).orderBy('id');
}
