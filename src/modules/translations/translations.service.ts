import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import {
  deleteTranslatedValues,
  replaceTranslatedValues,
  valuesOf,
  type DefinitionRow,
  checkTranslatedValues,
  type ValueInput,
} from '../custom-fields/index.js';
import { deleteTranslationRow, upsertTranslationRow, type TranslationOwner, type TranslationRow } from './translations.data.js';
import { translatableKindOf, translationColumns, translationTargetProblems, type TranslatableEntity } from './translations.rules.js';

/**
 * Translations of a record (course template, learning path, category): a sparse per-locale
 * overlay, falling back per field to the record's own content (the rules: translations.rules.ts).
 * A delete is hard and takes the locale's translated custom field values with it (for a kind that
 * has them). Problems about the record name the entity's id field (with the record's id), problems
 * about the locale name `localeId` (with the locale's id, or null when none was found).
 */

/**
 * Reads the translated record locked (its owner module's `lockCourseTemplate`, `lockLearningPath`,
 * `lockCategory`): what a translation write checks (the record, its primary locale) is what a
 * concurrent update or delete of the record would change. Passed in, so translations know no owner
 * module (the owners import translations).
 */
export type LockTranslationOwner = (db: Db, id: number) => Promise<TranslationOwner | undefined>;

/** A kind of translated record as its owner module's service gives it: its rules, and its row read locked. */
export interface TranslatedKind {
  entity: TranslatableEntity;
  lockOwner: LockTranslationOwner;
}

/** One locale's translation as a caller gives it: every translatable field (absent or null: not translated), and its custom field values. */
export interface TranslationInput {
  texts: Readonly<Record<string, string | null | undefined>>;
  /** Translations of translatable text custom fields that have a base value; replaces the locale's set. Only for a kind with custom field values. */
  customFieldValues?: ValueInput[] | null;
}

/**
 * The record (read locked) and the locale a translation write names, and why they cannot take one.
 * A new translation needs a supported locale; one that exists can be deleted even after its locale
 * stopped being supported: the caller passes the locale it found accordingly.
 */
async function target(
  db: Db,
  entity: TranslatableEntity,
  lockOwner: LockTranslationOwner,
  ownerId: number | undefined,
  locale: { id: number } | undefined,
) {
  const owner = ownerId === undefined ? undefined : await lockOwner(db, ownerId);
  const problems = translationTargetProblems(entity, { ownerId: ownerId ?? null, localeId: locale?.id ?? null }, { owner, locale });
  return { owner: owner as TranslationOwner, locale: locale!, problems };
}

/**
 * Creates or replaces the overlay of `locale` on the record `ownerId`: every translatable field
 * of `input` (absent = null), and the locale's custom field values, replaced as a whole.
 * `locale` is the supported locale the caller's id named (undefined: none); `definitions` gives
 * the custom field definitions (read only when the record and locale can take a translation, and
 * the kind has custom field values).
 */
export async function upsertTranslation(
  db: Db,
  entity: TranslatableEntity,
  lockOwner: LockTranslationOwner,
  ownerId: number | undefined,
  locale: { id: number } | undefined,
  input: TranslationInput,
  definitions: () => Promise<Iterable<DefinitionRow>>,
): Promise<{ translation: TranslationRow | null; problems: Problem[] }> {
  const t = await target(db, entity, lockOwner, ownerId, locale);
  if (t.problems.length) return { translation: null, problems: t.problems };
  const kind = translatableKindOf(entity);
  // A face of a kind without custom field values offers no such input; values given anyway are a bug of the caller, not dropped.
  if (!entity.values && input.customFieldValues?.length) throw new Error(`${entity.entityName} translations have no custom field values`);
  const texts = translationColumns(entity, input.texts);
  const values = entity.values
    ? checkTranslatedValues(
        await definitions(),
        entity.values,
        await valuesOf(db, entity.values.appliesTo, [t.owner.id]),
        input.customFieldValues ?? [],
      )
    : undefined;
  const problems = [...texts.problems, ...(values?.problems ?? [])];
  if (problems.length) return { translation: null, problems };

  const translation = await upsertTranslationRow(db, kind, t.owner.id, t.locale.id, texts.columns);
  if (entity.values && values) await replaceTranslatedValues(db, entity.values, t.owner.id, t.locale.id, values.values);
  return { translation, problems: [] };
}

/**
 * Deletes the overlay of `locale` (a locale of the catalogue, supported or not) on the record,
 * and its translated custom field values if its kind has them. Deleting one that is not there is
 * not an error.
 */
export async function deleteTranslation(
  db: Db,
  entity: TranslatableEntity,
  lockOwner: LockTranslationOwner,
  ownerId: number | undefined,
  locale: { id: number } | undefined,
): Promise<{ problems: Problem[] }> {
  const t = await target(db, entity, lockOwner, ownerId, locale);
  if (t.problems.length) return { problems: t.problems };
  await deleteTranslationRow(db, translatableKindOf(entity), t.owner.id, t.locale.id);
  if (entity.values) await deleteTranslatedValues(db, entity.values, t.owner.id, t.locale.id);
  return { problems: [] };
}
