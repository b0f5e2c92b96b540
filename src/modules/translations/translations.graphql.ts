import {
  GraphQLID,
  GraphQLInt,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, registerNode } from '../../kit/graphql/node.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/index.graphql.js';
import type { Problem } from '../../platform/problems.js';
import { valuesOf, valueTableOf, type FieldValueRow, type ValueInput } from '../custom-fields/index.js';
import { catalogueLocale, localeById, LocaleObject, supportedLocale } from '../locales/index.graphql.js';
import { translationsByIds, translationsOfOwners, translationTableOf, type TranslationRow } from './translations.data.js';
import type { Db } from '../../platform/db/knex.js';
import { translatableKindOf, translatedFields } from './translations.rules.js';
import { deleteTranslation, upsertTranslation, type TranslatedKind } from './translations.service.js';

/**
 * The GraphQL face of a translatable record: its Translation type (a Node), the owner's
 * `translations(locale:)` field, and the `upsertTranslation` / `deleteTranslation` mutations,
 * made once per kind of record from its {@link TranslatableEntity}. A kind with custom field
 * values shows them on its Translation type and takes them in its upsert input.
 */
export interface TranslationFaceSpec<O extends { id: number }> {
  /** Its rules and its lock, from the owner's service (`COURSE_TEMPLATE_TRANSLATED`). */
  translated: TranslatedKind;
  /** `CourseTemplate`. */
  ownerType: string;
  /** The owners by id, from their module's data file (`courseTemplatesByIds`), batched per request. */
  ownersByIds: (db: Db, ids: readonly number[]) => Promise<O[]>;
  viewPermission: string;
  editPermission: string;
  description: string;
  /** Descriptions where a kind's own words replace the defaults (a category's say it has no primary locale). */
  docs?: TranslationFaceDocs;
}

export interface TranslationFaceDocs {
  /** The owner's `translations` field. */
  translations?: string;
  upsert?: string;
  remove?: string;
  /** By input field name: the Translation type's field, and the upsert input's. */
  fields?: Record<string, { output?: string; input?: string }>;
}

export interface TranslationFace<O extends { id: number }> {
  type: GraphQLObjectType<TranslationRow, GraphQLContext>;
  translationsField: GraphQLFieldConfig<{ id: number }, GraphQLContext, { locale?: string | null }>;
  upsert: GraphQLFieldConfig<unknown, GraphQLContext, { input: UpsertArgs }>;
  remove: GraphQLFieldConfig<unknown, GraphQLContext, { input: DeleteArgs }>;
  /** Rows of the owner table by id (this request's loader). */
  owner(ctx: GraphQLContext, id: number): Promise<O | undefined>;
  /** The owner's custom field values, every locale (this request's loader); none for a kind without. */
  values(ctx: GraphQLContext, ownerId: number): Promise<FieldValueRow[]>;
  /** Forget what this request read of an owner, after writing it. */
  forget(ctx: GraphQLContext, ownerId: number): void;
}

/** The mutations' input as GraphQL gives it: the record's id under the entity's `idLabel`, the locale's id, the texts. */
type DeleteArgs = Record<string, unknown> & { localeId: string };
type UpsertArgs = DeleteArgs;

const columnOf = (row: TranslationRow, column: string): unknown => (row as Record<string, unknown>)[column];

export function translationFace<O extends { id: number }>(spec: TranslationFaceSpec<O>): TranslationFace<O> {
  const { ownerType, docs = {} } = spec;
  const { entity, lockOwner } = spec.translated;
  const typeName = `${ownerType}Translation`;
  const key = (k: string) => `${ownerType}.${k}`;
  const kind = translatableKindOf(entity);
  const tt = translationTableOf(kind);
  const owners = (ctx: GraphQLContext) => ctx.loader(key('byId'), (db) => byId((ids) => spec.ownersByIds(db, ids)));
  const translations = (ctx: GraphQLContext) =>
    ctx.loader(key('translations'), (db) =>
      byOwner<TranslationRow>(
        (ids) => translationsOfOwners(db, kind, ids),
        (r) => (r as unknown as Record<string, number>)[tt.owner]!,
      ),
    );
  const valueKind = entity.values?.appliesTo;
  const values = (ctx: GraphQLContext) =>
    valueKind &&
    ctx.loader(key('values'), (db) =>
      byOwner<FieldValueRow>(
        (ids) => valuesOf(db, valueKind, ids),
        (r) => (r as unknown as Record<string, number>)[valueTableOf(valueKind).owner]!,
      ),
    );
  const valuesOfOwner = async (ctx: GraphQLContext, ownerId: number): Promise<FieldValueRow[]> => (await values(ctx)?.load(ownerId)) ?? [];

  const textFields: GraphQLFieldConfigMap<TranslationRow, GraphQLContext> = Object.fromEntries(
    Object.entries(entity.fields).map(([name, f]) => [
      name,
      { type: GraphQLString, description: docs.fields?.[name]?.output, resolve: (row: TranslationRow) => columnOf(row, f.column) ?? null },
    ]),
  );
  const customFieldValues: GraphQLFieldConfigMap<TranslationRow, GraphQLContext> = entity.values
    ? {
        customFieldValues: {
          ...customFieldValuesField,
          description: 'The custom field values in this locale: the translation where there is one, else the base value.',
          resolve: async (row, _a, ctx) =>
            customFieldValuesOf(ctx, await valuesOfOwner(ctx, columnOf(row, tt.owner) as number), row.locale_id),
        },
      }
    : {};
  const type: GraphQLObjectType<TranslationRow, GraphQLContext> = new GraphQLObjectType<TranslationRow, GraphQLContext>({
    name: typeName,
    description: spec.description,
    interfaces: [NodeInterface],
    fields: () => ({
      id: { type: new GraphQLNonNull(GraphQLID), resolve: (row) => toGlobalId(typeName, row.id) },
      legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (row) => row.id },
      locale: { type: new GraphQLNonNull(LocaleObject), resolve: async (row, _a, ctx) => localeById(ctx, row.locale_id) },
      ...textFields,
      translatedFields: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
        description: 'The fields above that are not null in this locale (null: not translated, so readers fall back).',
        resolve: (row) => translatedFields(entity, row),
      },
      ...customFieldValues,
    }),
  });

  registerNode(typeName, {
    permission: spec.viewPermission,
    load: async (ctx, id) => ctx.loader(key('translationById'), (db) => byId((ids) => translationsByIds(db, kind, ids))).load(id),
  });

  const translationsField: TranslationFace<O>['translationsField'] = {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
    description:
      docs.translations ??
      'One entry per locale this record is translated into; with `locale`, only that one (an empty list when it is not translated). Never the primary locale.',
    args: { locale: { type: GraphQLID, description: 'A Locale id.' } },
    async resolve(owner, args, ctx) {
      requirePermission(ctx, spec.viewPermission);
      const all = await translations(ctx).load(owner.id);
      if (args.locale == null) return all;
      const localeId = legacyIdOf('Locale', args.locale);
      return all.filter((t) => t.locale_id === localeId);
    },
  };

  const textInputs = Object.fromEntries(
    Object.keys(entity.fields).map((name) => [
      name,
      {
        type: GraphQLString,
        description: docs.fields?.[name]?.input ?? 'null or absent: not translated (falls back); "": a deliberate blank.',
      },
    ]),
  );
  const valueInputs: GraphQLInputFieldConfigMap = entity.values
    ? {
        customFieldValues: {
          type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)),
          description: "Translations of translatable text custom fields that have a base value. Replaces the locale's set.",
        },
      }
    : {};
  const upsertInput = new GraphQLInputObjectType({
    name: `${ownerType}TranslationUpsertInput`,
    fields: {
      [entity.idLabel]: { type: new GraphQLNonNull(GraphQLID) },
      localeId: { type: new GraphQLNonNull(GraphQLID) },
      ...textInputs,
      ...valueInputs,
    },
  });
  const deleteInput = new GraphQLInputObjectType({
    name: `${ownerType}TranslationDeleteInput`,
    fields: { [entity.idLabel]: { type: new GraphQLNonNull(GraphQLID) }, localeId: { type: new GraphQLNonNull(GraphQLID) } },
  });
  const payload = payloadType(`${ownerType}TranslationPayload`, 'translation', () => type);

  const forget = (ctx: GraphQLContext, ownerId: number) => {
    translations(ctx).clear(ownerId);
    values(ctx)?.clear(ownerId);
    owners(ctx).clear(ownerId);
    ctx.forget(key('translationById'));
  };

  /** Problems about the record and the locale carry their ids; the caller sees the ids it sent. */
  const withGivenIds = (problems: Problem[], input: DeleteArgs): FieldError[] =>
    toFieldErrors(
      problems.map((p) =>
        p.field === entity.idLabel ? { ...p, value: input[entity.idLabel] } : p.field === 'localeId' ? { ...p, value: input.localeId } : p,
      ),
    );

  const refusedTarget = (problems: Problem[]) => problems.some((p) => p.field === entity.idLabel || p.field === 'localeId');

  const upsert: TranslationFace<O>['upsert'] = {
    type: payload,
    description:
      docs.upsert ??
      `Creates or fully replaces one locale's translation (replace, not patch: omitted fields are stored as null and fall back).`,
    args: { input: { type: new GraphQLNonNull(upsertInput) } },
    async resolve(_root, { input }, ctx): Promise<{ translation: TranslationRow | null; errors: FieldError[] }> {
      requirePermission(ctx, spec.editPermission);
      const ownerId = legacyIdOf(ownerType, input[entity.idLabel]);
      const texts = Object.fromEntries(Object.keys(entity.fields).map((name) => [name, input[name] as string | null | undefined]));
      const { translation, problems } = await upsertTranslation(
        ctx.db,
        entity,
        lockOwner,
        ownerId,
        await supportedLocale(ctx, input.localeId),
        { texts, customFieldValues: input.customFieldValues as ValueInput[] | null | undefined },
        async () => (await allDefinitions(ctx)).values(),
      );
      // The record was locked and checked (whatever the texts' problems): forget what this request read of it.
      if (!refusedTarget(problems)) forget(ctx, ownerId!);
      return { translation, errors: withGivenIds(problems, input) };
    },
  };

  const remove: TranslationFace<O>['remove'] = {
    type: payload,
    description: docs.remove ?? "Deletes one locale's translation for good, with its translated custom field values.",
    args: { input: { type: new GraphQLNonNull(deleteInput) } },
    async resolve(_root, { input }, ctx): Promise<{ translation: null; errors: FieldError[] }> {
      requirePermission(ctx, spec.editPermission);
      const ownerId = legacyIdOf(ownerType, input[entity.idLabel]);
      // A translation that exists can be deleted even after its locale stopped being supported.
      const { problems } = await deleteTranslation(ctx.db, entity, lockOwner, ownerId, await catalogueLocale(ctx, input.localeId));
      if (!refusedTarget(problems)) forget(ctx, ownerId!);
      return { translation: null, errors: withGivenIds(problems, input) };
    },
  };

  return {
    type,
    translationsField,
    upsert,
    remove,
    owner: (ctx, id) => owners(ctx).load(id),
    values: valuesOfOwner,
    forget,
  };
}
