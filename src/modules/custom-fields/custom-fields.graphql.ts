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
  type GraphQLFieldConfig,
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { wholeTable } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import type { Problem } from '../../platform/problems.js';
import { allDefinitionRows, CustomFieldDefinition, type DefinitionRow, type FieldValueRow } from './custom-fields.data.js';
import { APPLIES_TO, CUSTOM_FIELD_TYPES, shownValues, type AppliesTo, type DefinitionInput } from './custom-fields.rules.js';
import { changeDefinition, createDefinition } from './custom-fields.service.js';

/** Custom field definitions and values in GraphQL. */

const LOADER = 'custom-field-definitions';

/** A definition as this API shows it: with its locator, the global id its values also name it by. */
export type DefinitionView = DefinitionRow & { locator: string };

/**
 * Every definition of the tenant, by id, read once per request. Each carries its `locator` (its
 * global id): the production service's clients name a definition by its global id
 * (`definitionKey: "Q3VzdG9tRmllbGREZWZpbml0aW9uOjM5"`), so value inputs take it in place of
 * the key (custom-fields.rules.ts).
 */
export const allDefinitions = (ctx: GraphQLContext) =>
  ctx.loader(LOADER, (db) =>
    wholeTable(async (): Promise<DefinitionView[]> =>
      (await allDefinitionRows(db)).map((d) => ({ ...d, locator: toGlobalId('CustomFieldDefinition', d.id) })),
    ),
  )();

const upper = (v: string) => v.toUpperCase();

export const CustomFieldTypeEnum = new GraphQLEnumType({
  name: 'CustomFieldType',
  description: 'TEXT, TEXTAREA and RICH_TEXT are text-shaped (translatable when flagged); RICH_TEXT is sanitised on write.',
  values: Object.fromEntries(CUSTOM_FIELD_TYPES.map((t) => [upper(t), { value: t }])),
});
export const CustomFieldAppliesToEnum = new GraphQLEnumType({
  name: 'CustomFieldAppliesTo',
  values: Object.fromEntries(APPLIES_TO.map((t) => [upper(t), { value: t }])),
});

export const CustomFieldDefinitionObject = new GraphQLObjectType<DefinitionRow, GraphQLContext>({
  name: 'CustomFieldDefinition',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('CustomFieldDefinition'),
    key: { type: new GraphQLNonNull(GraphQLID), description: 'The definitionKey values name it by.' },
    label: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString, description: 'What the field is for (null: none given).' },
    type: { type: new GraphQLNonNull(CustomFieldTypeEnum) },
    appliesTo: { type: new GraphQLNonNull(CustomFieldAppliesToEnum), resolve: (d) => d.applies_to },
    isTranslatable: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (d) => d.is_translatable },
    isBuiltIn: {
      type: new GraphQLNonNull(GraphQLBoolean),
      resolve: (d) => d.is_builtin,
      description: 'A built-in course description field: its value is a courseText field of the template, set and translated there.',
    },
    maxLength: { type: GraphQLInt, resolve: (d) => d.max_length },
    pattern: { type: GraphQLString, description: 'A regular expression (RE2 syntax: no backreferences or lookaround) values must match.' },
    isRequired: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'Always false: Lectern has no required custom fields (a record can always be saved without a value).',
      resolve: () => false,
    },
    roles: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
      description:
        "Always empty: Lectern does not restrict custom fields to roles (who may read or write a value follows the record's own permissions).",
      resolve: () => [],
    },
  }),
});

registerNode('CustomFieldDefinition', { permission: 'CUSTOM_FIELD_VIEW', load: async (ctx, id) => (await allDefinitions(ctx)).get(id) });

/** A value of a custom field on a record (or its translation, merged over the base). */
export interface CustomFieldValueView {
  def: DefinitionRow;
  value: string | null;
}

export const CustomFieldValueObject = new GraphQLObjectType<CustomFieldValueView, GraphQLContext>({
  name: 'CustomFieldValue',
  fields: {
    definitionKey: { type: new GraphQLNonNull(GraphQLID), resolve: (v) => v.def.key },
    definitionLocator: {
      type: new GraphQLNonNull(GraphQLID),
      description:
        "The definition's global id (CustomFieldDefinition), as the production service names a definition; value inputs take it as definitionKey too.",
      resolve: (v) => toGlobalId('CustomFieldDefinition', v.def.id),
    },
    value: { type: GraphQLString },
    definition: { type: new GraphQLNonNull(CustomFieldDefinitionObject), resolve: (v) => v.def },
  },
});

export const CustomFieldValueInput = new GraphQLInputObjectType({
  name: 'CustomFieldValueInput',
  fields: {
    definitionKey: { type: new GraphQLNonNull(GraphQLID), description: "The definition's key, or its global id (definitionLocator)." },
    value: { type: GraphQLString, description: 'null removes the value (on a record; a translation simply leaves it out).' },
  },
});

export const customFieldValuesField = {
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CustomFieldValueObject))),
};

/**
 * The values to show: the base values of the record's non-built-in fields, each overlaid by
 * `localeId`'s translation when it has one (per field: the translation, else the base).
 */
export async function customFieldValuesOf(
  ctx: GraphQLContext,
  values: FieldValueRow[],
  localeId: number | null,
): Promise<CustomFieldValueView[]> {
  return shownValues(await allDefinitions(ctx), values, localeId);
}

export const customFieldDefinitionsQuery = listQuery<DefinitionRow>({
  typeName: 'CustomFieldDefinition',
  table: CustomFieldDefinition.tableName,
  permission: 'CUSTOM_FIELD_VIEW',
  node: () => CustomFieldDefinitionObject,
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
    description: { type: GraphQLString, description: 'What the field is for; null clears it.' },
    type: { type: CustomFieldTypeEnum, description: 'Required on create; cannot change.' },
    appliesTo: { type: CustomFieldAppliesToEnum, description: 'Required on create; cannot change.' },
    isTranslatable: { type: GraphQLBoolean, description: 'Default false.' },
    maxLength: { type: GraphQLInt },
    pattern: { type: GraphQLString },
  },
});

const CustomFieldDefinitionPayload = payloadType(
  'CustomFieldDefinitionPayload',
  'customFieldDefinition',
  () => CustomFieldDefinitionObject,
);

type Payload = { customFieldDefinition: DefinitionRow | null; errors: FieldError[] };

/** Problems about the definition itself carry its id; the caller sees the global id it sent. */
const withGivenId = (problems: Problem[], given: string) =>
  problems.map((p) => (p.field === 'customFieldDefinitionId' ? { ...p, value: given } : p));

export const CustomFieldDefinitionMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'CustomFieldDefinitionMutations',
  fields: {
    create: {
      type: CustomFieldDefinitionPayload,
      args: { input: { type: new GraphQLNonNull(CustomFieldDefinitionInput) } },
      async resolve(_root, { input }: { input: DefinitionInput }, ctx): Promise<Payload> {
        requirePermission(ctx, 'CUSTOM_FIELD_EDIT');
        const { definition, problems } = await createDefinition(ctx.db, input);
        if (definition) ctx.forget(LOADER);
        return { customFieldDefinition: definition, errors: toFieldErrors(problems) };
      },
    },
    update: {
      type: CustomFieldDefinitionPayload,
      description:
        'Changes the label, description, translatability and validation of a definition; its key, type and what it applies to stay.',
      args: {
        customFieldDefinitionId: { type: new GraphQLNonNull(GraphQLID) },
        input: { type: new GraphQLNonNull(CustomFieldDefinitionInput) },
      },
      async resolve(
        _root,
        { customFieldDefinitionId, input }: { customFieldDefinitionId: string; input: DefinitionInput },
        ctx,
      ): Promise<Payload> {
        requirePermission(ctx, 'CUSTOM_FIELD_EDIT');
        const id = legacyIdOf('CustomFieldDefinition', customFieldDefinitionId);
        if (id === undefined)
          return {
            customFieldDefinition: null,
            errors: [fieldError('customFieldDefinitionId', customFieldDefinitionId, 'Custom Field Definition not found')],
          };
        const { definition, problems } = await changeDefinition(ctx.db, id, input);
        if (definition) ctx.forget(LOADER);
        return { customFieldDefinition: definition, errors: toFieldErrors(withGivenId(problems, customFieldDefinitionId)) };
      },
    },
  },
});

// --- customFieldTemplate --------------------------------------------------------------------

/**
 * The kinds of record the production service's clients ask for a custom field template of
 * (real-clients.md section 3), and which of them Lectern has custom fields on. The others are
 * accepted and have none (an empty list), so a client that asks for every kind in turn works.
 */
const SUPPORTS_CUSTOM_FIELD: Record<string, AppliesTo | null> = {
  Account: null,
  Achievement: null,
  Company: null,
  Contact: null,
  Content: null,
  Course: null,
  CourseTemplate: 'course_template',
  Event: 'event',
  Learner: null,
  LearningPath: 'learning_path',
  LearningPathLearner: null,
  Opportunity: null,
  OpportunityEventInterestLearner: null,
  OpportunityPassInterestLearner: null,
  OpportunityPathInterestLearner: null,
  Session: 'session',
  StockItem: null,
  TokenIssue: null,
};

export const SupportsCustomFieldEnum = new GraphQLEnumType({
  name: 'SupportsCustomField',
  description:
    'A kind of record that may have custom fields. Lectern has them on CourseTemplate, Event, LearningPath and Session; the others have none.',
  values: Object.fromEntries(
    Object.entries(SUPPORTS_CUSTOM_FIELD).map(([name, kind]) => [
      name,
      {
        value: name,
        description: kind ? `Custom fields that apply to ${kind}.` : 'Lectern has no custom fields on these: always an empty list.',
      },
    ]),
  ),
});

interface CustomFieldTemplateView {
  type: string;
  definitions: DefinitionRow[];
}

const CustomFieldTemplateObject = new GraphQLObjectType<CustomFieldTemplateView, GraphQLContext>({
  name: 'CustomFieldTemplate',
  description: 'The custom fields a kind of record has.',
  fields: {
    type: { type: new GraphQLNonNull(SupportsCustomFieldEnum) },
    customFieldDefinitions: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CustomFieldDefinitionObject))),
      description:
        "Its definitions, oldest first: those its customFieldValues may hold (the built-in course description fields, set with a template's courseText fields, are not among them).",
      resolve: (t) => t.definitions,
    },
  },
});

/** `customFieldTemplate(type:)`: the custom field definitions of one kind of record (CUSTOM_FIELD_VIEW). */
export const customFieldTemplateQuery: GraphQLFieldConfig<unknown, GraphQLContext, { type: string }> = {
  type: new GraphQLNonNull(CustomFieldTemplateObject),
  description:
    'The custom fields of a kind of record (CourseTemplate, Event, LearningPath, Session); an empty list for kinds Lectern has none on.',
  args: { type: { type: new GraphQLNonNull(SupportsCustomFieldEnum) } },
  async resolve(_root, { type }, ctx): Promise<CustomFieldTemplateView> {
    requirePermission(ctx, 'CUSTOM_FIELD_VIEW');
    const kind = SUPPORTS_CUSTOM_FIELD[type] ?? null;
    if (!kind) return { type, definitions: [] };
    const definitions = [...(await allDefinitions(ctx)).values()]
      .filter((d) => d.applies_to === kind && !d.is_builtin)
      .sort((a, b) => a.id - b.id);
    return { type, definitions };
  },
};
