import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { wholeTable } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { APPLIES_TO, CUSTOM_FIELD_TYPES, definitionInput, type DefinitionRow, type FieldValueRow } from './custom-fields.service.js';

/** Custom field definitions and values in GraphQL. */

const LOADER = 'custom-field-definitions';
export const allDefinitions = (ctx: GraphQLContext) => ctx.loader(LOADER, (db) => wholeTable<DefinitionRow>(db, 'custom_field_definitions'))();

const upper = (v: string) => v.toUpperCase();

export const CustomFieldType = new GraphQLEnumType({
  name: 'CustomFieldType',
  description: 'TEXT, TEXTAREA and RICH_TEXT are text-shaped (translatable when flagged); RICH_TEXT is sanitised on write.',
  values: Object.fromEntries(CUSTOM_FIELD_TYPES.map((t) => [upper(t), { value: t }])),
});
export const CustomFieldAppliesTo = new GraphQLEnumType({ name: 'CustomFieldAppliesTo', values: Object.fromEntries(APPLIES_TO.map((t) => [upper(t), { value: t }])) });

export const CustomFieldDefinition = new GraphQLObjectType<DefinitionRow, GraphQLContext>({
  name: 'CustomFieldDefinition',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('CustomFieldDefinition'),
    key: { type: new GraphQLNonNull(GraphQLID), description: 'The definitionKey values name it by.' },
    label: { type: new GraphQLNonNull(GraphQLString) },
    type: { type: new GraphQLNonNull(CustomFieldType) },
    appliesTo: { type: new GraphQLNonNull(CustomFieldAppliesTo), resolve: (d) => d.applies_to },
    isTranslatable: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (d) => d.is_translatable },
    isBuiltIn: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (d) => d.is_builtin, description: "A built-in course description field: its value is a courseText field of the template, set and translated there." },
    maxLength: { type: GraphQLInt, resolve: (d) => d.max_length },
    pattern: { type: GraphQLString, description: 'A regular expression (RE2 syntax: no backreferences or lookaround) values must match.' },
  }),
});

registerNode('CustomFieldDefinition', { permission: 'CUSTOM_FIELD_VIEW', load: async (ctx, id) => (await allDefinitions(ctx)).get(id) });

/** A value of a custom field on a record (or its translation, merged over the base). */
export interface CustomFieldValueView {
  def: DefinitionRow;
  value: string | null;
}

export const CustomFieldValue = new GraphQLObjectType<CustomFieldValueView, GraphQLContext>({
  name: 'CustomFieldValue',
  fields: {
    definitionKey: { type: new GraphQLNonNull(GraphQLID), resolve: (v) => v.def.key },
    value: { type: GraphQLString },
    definition: { type: new GraphQLNonNull(CustomFieldDefinition), resolve: (v) => v.def },
  },
});

export const CustomFieldValueInput = new GraphQLInputObjectType({
  name: 'CustomFieldValueInput',
  fields: { definitionKey: { type: new GraphQLNonNull(GraphQLID) }, value: { type: GraphQLString, description: 'null removes the value (on a record; a translation simply leaves it out).' } },
});

export const customFieldValuesField = {
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CustomFieldValue))),
};

/**
 * The values to show: the base values of the record's non-built-in fields, each overlaid by
 * `localeId`'s translation when it has one (per field: the translation, else the base).
 */
export async function customFieldValuesOf(ctx: GraphQLContext, values: FieldValueRow[], localeId: number | null): Promise<CustomFieldValueView[]> {
  const defs = await allDefinitions(ctx);
  const translated = new Map(values.filter((v) => localeId !== null && v.locale_id === localeId).map((v) => [v.definition_id, v.value]));
  return values
    .filter((v) => v.locale_id === null)
    .map((v) => ({ def: defs.get(v.definition_id)!, value: translated.get(v.definition_id) ?? v.value }))
    .filter((v) => v.def && !v.def.is_builtin)
    .sort((a, b) => a.def.id - b.def.id);
}

export const customFieldDefinitionsQuery = listQuery<DefinitionRow>({
  typeName: 'CustomFieldDefinition',
  table: 'custom_field_definitions',
  permission: 'CUSTOM_FIELD_VIEW',
  node: () => CustomFieldDefinition,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'CustomFieldDefinition', orderable: true },
    key: { column: 'key', kind: 'text', orderable: true },
    label: { column: 'label', kind: 'text', orderable: true },
    type: { column: 'type', kind: 'enum', enumValues: CUSTOM_FIELD_TYPES },
    appliesTo: { column: 'applies_to', kind: 'enum', enumValues: APPLIES_TO },
    isTranslatable: { column: 'is_translatable', kind: 'bool' },
    isBuiltIn: { column: 'is_builtin', kind: 'bool' },
  },
});

const CustomFieldDefinitionInput = new GraphQLInputObjectType({
  name: 'CustomFieldDefinitionInput',
  fields: {
    key: { type: GraphQLID, description: 'Required on create; cannot change.' },
    label: { type: GraphQLString, description: 'Required on create.' },
    type: { type: CustomFieldType, description: 'Required on create; cannot change.' },
    appliesTo: { type: CustomFieldAppliesTo, description: 'Required on create; cannot change.' },
    isTranslatable: { type: GraphQLBoolean, description: 'Default false.' },
    maxLength: { type: GraphQLInt },
    pattern: { type: GraphQLString },
  },
});

const CustomFieldDefinitionPayload = payloadType('CustomFieldDefinitionPayload', 'customFieldDefinition', () => CustomFieldDefinition);

type Payload = { customFieldDefinition: DefinitionRow | null; errors: FieldError[] };
type DefinitionInputArgs = { key?: string | null; label?: string | null; type?: string | null; appliesTo?: string | null; isTranslatable?: boolean | null; maxLength?: number | null; pattern?: string | null };

const zodErrors = (issues: { path: PropertyKey[]; message: string }[], input: Record<string, unknown>) =>
  issues.map((i) => fieldError(String(i.path[0] ?? 'input'), input[String(i.path[0])], i.message));

export const CustomFieldDefinitionMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'CustomFieldDefinitionMutations',
  fields: {
    create: {
      type: CustomFieldDefinitionPayload,
      args: { input: { type: new GraphQLNonNull(CustomFieldDefinitionInput) } },
      async resolve(_root, { input }: { input: DefinitionInputArgs }, ctx): Promise<Payload> {
        requirePermission(ctx, 'CUSTOM_FIELD_EDIT');
        const parsed = definitionInput.safeParse({ ...input, isTranslatable: input.isTranslatable ?? false });
        if (!parsed.success) return { customFieldDefinition: null, errors: zodErrors(parsed.error.issues, input) };
        const d = parsed.data;
        if (await ctx.db('custom_field_definitions').where({ key: d.key }).first('id')) return { customFieldDefinition: null, errors: [fieldError('key', d.key, 'A custom field with this key exists')] };
        const [row] = await ctx.db('custom_field_definitions')
          .insert({ key: d.key, label: d.label, type: d.type, applies_to: d.appliesTo, is_translatable: d.isTranslatable, max_length: d.maxLength ?? null, pattern: d.pattern ?? null })
          .returning('*');
        ctx.forget(LOADER);
        return { customFieldDefinition: row, errors: [] };
      },
    },
    update: {
      type: CustomFieldDefinitionPayload,
      description: 'Changes the label, translatability and validation of a definition; its key, type and what it applies to stay.',
      args: { customFieldDefinitionId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(CustomFieldDefinitionInput) } },
      async resolve(_root, { customFieldDefinitionId, input }: { customFieldDefinitionId: string; input: DefinitionInputArgs }, ctx): Promise<Payload> {
        requirePermission(ctx, 'CUSTOM_FIELD_EDIT');
        const id = legacyIdOf('CustomFieldDefinition', customFieldDefinitionId);
        const existing = id === undefined ? undefined : await ctx.db('custom_field_definitions').where({ id }).first<DefinitionRow | undefined>();
        if (!existing) return { customFieldDefinition: null, errors: [fieldError('customFieldDefinitionId', customFieldDefinitionId, 'Custom Field Definition not found')] };
        const errors: FieldError[] = [];
        if (existing.is_builtin) errors.push(fieldError('customFieldDefinitionId', customFieldDefinitionId, 'Built-in custom fields cannot be changed'));
        for (const [name, column] of [['key', 'key'], ['type', 'type'], ['appliesTo', 'applies_to']] as const) {
          if (input[name] != null && input[name] !== existing[column]) errors.push(fieldError(name, input[name], `The ${name} of a custom field cannot change`));
        }
        const merged = {
          key: existing.key,
          label: input.label ?? existing.label,
          type: existing.type,
          appliesTo: existing.applies_to,
          isTranslatable: input.isTranslatable ?? existing.is_translatable,
          maxLength: 'maxLength' in input ? input.maxLength : existing.max_length,
          pattern: 'pattern' in input ? input.pattern : existing.pattern,
        };
        const parsed = definitionInput.safeParse(merged);
        if (!parsed.success) errors.push(...zodErrors(parsed.error.issues, merged));
        if (existing.is_translatable && merged.isTranslatable === false) {
          const table = { course_template: 'course_template_field_values', learning_path: 'learning_path_field_values', event: 'event_field_values' }[existing.applies_to];
          if (await ctx.db(table).where({ definition_id: existing.id }).whereNotNull('locale_id').first('id')) {
            errors.push(fieldError('isTranslatable', false, 'This Custom Field has translated values; remove them from the translations first'));
          }
        }
        if (errors.length) return { customFieldDefinition: null, errors };
        const [row] = await ctx.db('custom_field_definitions')
          .where({ id: existing.id })
          .update({ label: merged.label, is_translatable: merged.isTranslatable, max_length: merged.maxLength ?? null, pattern: merged.pattern ?? null, updated_on: ctx.db.raw(`(now() at time zone 'utc')`) })
          .returning('*');
        ctx.forget(LOADER);
        return { customFieldDefinition: row, errors: [] };
      },
    },
  },
});
