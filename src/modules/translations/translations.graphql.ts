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
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, registerNode } from '../../kit/graphql/node.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/custom-fields.graphql.js';
import type { FieldValueRow } from '../custom-fields/custom-fields.service.js';
import { catalogueLocale, localeById, Locale, supportedLocale } from '../locales/locales.graphql.js';
import { deleteTranslation, translatedFields, translationTargetErrors, upsertTranslation, type TranslatableEntity, type TranslationRow } from './translations.service.js';

/**
 * The GraphQL face of a translatable record: its Translation type (a Node), the owner's
 * `translations(locale:)` field, and the `upsertTranslation` / `deleteTranslation` mutations,
 * made once per kind of record from its {@link TranslatableEntity}.
 */
export interface TranslationFaceSpec {
  entity: TranslatableEntity;
  /** `CourseTemplate`. */
  ownerType: string;
  viewPermission: string;
  editPermission: string;
  description: string;
}

export interface TranslationFace {
  type: GraphQLObjectType<TranslationRow, GraphQLContext>;
  translationsField: GraphQLFieldConfig<{ id: number }, GraphQLContext, { locale?: string | null }>;
  upsert: GraphQLFieldConfig<unknown, GraphQLContext, { input: Record<string, unknown> }>;
  remove: GraphQLFieldConfig<unknown, GraphQLContext, { input: Record<string, unknown> }>;
  /** Rows of the owner table by id (this request's loader). */
  owner(ctx: GraphQLContext, id: number): Promise<{ id: number; locale_id: number | null } | undefined>;
  /** The owner's custom field values, every locale (this request's loader). */
  values(ctx: GraphQLContext, ownerId: number): Promise<FieldValueRow[]>;
  /** Forget what this request read of an owner, after writing it. */
  forget(ctx: GraphQLContext, ownerId: number): void;
}

export function translationFace(spec: TranslationFaceSpec): TranslationFace {
  const { entity, ownerType } = spec;
  const typeName = `${ownerType}Translation`;
  const key = (k: string) => `${ownerType}.${k}`;
  const owners = (ctx: GraphQLContext) => ctx.loader(key('byId'), (db) => byId<{ id: number; locale_id: number | null }>(db, entity.table));
  const translations = (ctx: GraphQLContext) => ctx.loader(key('translations'), (db) => byOwner<TranslationRow>(db, entity.translationsTable, entity.owner, 'locale_id'));
  const values = (ctx: GraphQLContext) => ctx.loader(key('values'), (db) => byOwner<FieldValueRow>(db, entity.values.table, entity.values.owner));

  const textFields: GraphQLFieldConfigMap<TranslationRow, GraphQLContext> = Object.fromEntries(
    Object.entries(entity.fields).map(([name, f]) => [name, { type: GraphQLString, resolve: (row: TranslationRow) => row[f.column] ?? null }]),
  );
  const type: GraphQLObjectType<TranslationRow, GraphQLContext> = new GraphQLObjectType<TranslationRow, GraphQLContext>({
    name: typeName,
    description: spec.description,
    interfaces: [NodeInterface],
    fields: () => ({
      id: { type: new GraphQLNonNull(GraphQLID), resolve: (row) => toGlobalId(typeName, row.id) },
      legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (row) => row.id },
      locale: { type: new GraphQLNonNull(Locale), resolve: async (row, _a, ctx) => localeById(ctx, row.locale_id) },
      ...textFields,
      translatedFields: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
        description: 'The fields above that are not null in this locale (null: not translated, so readers fall back).',
        resolve: (row) => translatedFields(entity, row),
      },
      customFieldValues: {
        ...customFieldValuesField,
        description: 'The custom field values in this locale: the translation where there is one, else the base value.',
        resolve: async (row, _a, ctx) => customFieldValuesOf(ctx, await values(ctx).load(row[entity.owner] as number), row.locale_id),
      },
    }),
  });

  registerNode(typeName, {
    permission: spec.viewPermission,
    load: async (ctx, id) => ctx.loader(key('translationById'), (db) => byId<TranslationRow>(db, entity.translationsTable)).load(id),
  });

  const translationsField: TranslationFace['translationsField'] = {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
    description: 'One entry per locale this record is translated into; with `locale`, only that one (an empty list when it is not translated). Never the primary locale.',
    args: { locale: { type: GraphQLID, description: 'A Locale id.' } },
    async resolve(owner, args, ctx) {
      requirePermission(ctx, spec.viewPermission);
      const all = await translations(ctx).load(owner.id);
      if (args.locale == null) return all;
      const localeId = legacyIdOf('Locale', args.locale);
      return all.filter((t) => t.locale_id === localeId);
    },
  };

  const textInputs = Object.fromEntries(Object.keys(entity.fields).map((name) => [name, { type: GraphQLString, description: 'null or absent: not translated (falls back); "": a deliberate blank.' }]));
  const upsertInput = new GraphQLInputObjectType({
    name: `${ownerType}TranslationUpsertInput`,
    fields: {
      [entity.idLabel]: { type: new GraphQLNonNull(GraphQLID) },
      localeId: { type: new GraphQLNonNull(GraphQLID) },
      ...textInputs,
      customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)), description: 'Translations of translatable text custom fields that have a base value. Replaces the locale\'s set.' },
    },
  });
  const deleteInput = new GraphQLInputObjectType({
    name: `${ownerType}TranslationDeleteInput`,
    fields: { [entity.idLabel]: { type: new GraphQLNonNull(GraphQLID) }, localeId: { type: new GraphQLNonNull(GraphQLID) } },
  });
  const payload = payloadType(`${ownerType}TranslationPayload`, 'translation', () => type);

  const forget = (ctx: GraphQLContext, ownerId: number) => {
    translations(ctx).clear(ownerId);
    values(ctx).clear(ownerId);
    owners(ctx).clear(ownerId);
  };

  /**
   * The record and locale a translation mutation names, and why they cannot take one. The record
   * is read locked, not from the loader: what is checked here (its primary locale) is what a
   * concurrent update of the record would change. A new translation needs a supported locale;
   * one that exists can be deleted even after its locale stopped being supported.
   */
  async function target(ctx: GraphQLContext, input: Record<string, unknown>, purpose: 'write' | 'delete') {
    const legacy = legacyIdOf(ownerType, input[entity.idLabel]);
    const owner = legacy === undefined ? undefined : await ctx.db(entity.table).where({ id: legacy }).forUpdate().first<{ id: number; locale_id: number | null } | undefined>();
    const locale = await (purpose === 'delete' ? catalogueLocale : supportedLocale)(ctx, input.localeId);
    const errors = translationTargetErrors(entity, { ownerId: input[entity.idLabel], localeId: input.localeId }, { owner, locale });
    return { owner: owner!, locale: locale!, errors };
  }

  const upsert: TranslationFace['upsert'] = {
    type: payload,
    description: `Creates or fully replaces one locale's translation (replace, not patch: omitted fields are stored as null and fall back).`,
    args: { input: { type: new GraphQLNonNull(upsertInput) } },
    async resolve(_root, { input }, ctx): Promise<{ translation: TranslationRow | null; errors: FieldError[] }> {
      requirePermission(ctx, spec.editPermission);
      const t = await target(ctx, input, 'write');
      if (t.errors.length) return { translation: null, errors: t.errors };
      const ownerValues = (await ctx.db(entity.values.table).where({ [entity.values.owner]: t.owner.id })) as FieldValueRow[];
      const result = await upsertTranslation(ctx.db, entity, t, input, (await allDefinitions(ctx)).values(), ownerValues);
      forget(ctx, t.owner.id);
      return result;
    },
  };

  const remove: TranslationFace['remove'] = {
    type: payload,
    description: "Deletes one locale's translation for good, with its translated custom field values.",
    args: { input: { type: new GraphQLNonNull(deleteInput) } },
    async resolve(_root, { input }, ctx): Promise<{ translation: null; errors: FieldError[] }> {
      requirePermission(ctx, spec.editPermission);
      const t = await target(ctx, input, 'delete');
      if (t.errors.length) return { translation: null, errors: t.errors };
      await deleteTranslation(ctx.db, entity, t);
      forget(ctx, t.owner.id);
      return { translation: null, errors: [] };
    },
  };

  return {
    type,
    translationsField,
    upsert,
    remove,
    owner: (ctx, id) => owners(ctx).load(id),
    values: (ctx, ownerId) => values(ctx).load(ownerId),
    forget,
  };
}
