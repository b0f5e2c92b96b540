import { GraphQLBoolean, GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import { AppError } from '../../platform/errors.js';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { wholeTable } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { allLocaleRows, Locale } from './locales.data.js';
import { disableLocale, enableLocale, setDefaultLocale, type LocaleRow } from './locales.service.js';

/**
 * Locales: the catalogue Lectern knows, with which of them the tenant supports and which is its
 * default. Reading the list needs LOCALE_VIEW; a Locale reached through a record (a course
 * template's locale) is part of that record.
 */
const LOADER = 'locales';
export const allLocales = (ctx: GraphQLContext) => ctx.loader(LOADER, (db) => wholeTable(() => allLocaleRows(db)))();

export async function localeById(ctx: GraphQLContext, id: number | null | undefined): Promise<LocaleRow | null> {
  return id == null ? null : ((await allLocales(ctx)).get(id) ?? null);
}

/** The locale of the catalogue a global id names, supported by the tenant or not. */
export async function catalogueLocale(ctx: GraphQLContext, id: unknown): Promise<LocaleRow | undefined> {
  const legacyId = legacyIdOf('Locale', id);
  return legacyId === undefined ? undefined : (await allLocales(ctx)).get(legacyId);
}

/** The locale a global id names when the tenant supports it. */
export async function supportedLocale(ctx: GraphQLContext, id: unknown): Promise<LocaleRow | undefined> {
  const row = await catalogueLocale(ctx, id);
  return row?.supported ? row : undefined;
}

export const LocaleObject: GraphQLObjectType<LocaleRow, GraphQLContext> = new GraphQLObjectType<LocaleRow, GraphQLContext>({
  name: 'Locale',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Locale'),
    name: { type: new GraphQLNonNull(GraphQLString), description: 'e.g. French' },
    fullName: { type: new GraphQLNonNull(GraphQLString), resolve: (l) => l.full_name, description: 'e.g. French (Canada)' },
    code: { type: new GraphQLNonNull(GraphQLString), description: 'BCP 47, e.g. fr-CA' },
    default: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (l) => l.is_default, description: "The instance's default locale." },
    supported: { type: new GraphQLNonNull(GraphQLBoolean), description: 'The instance uses this locale for content.' },
  }),
});

registerNode('Locale', { permission: 'LOCALE_VIEW', load: async (ctx, id) => (await allLocales(ctx)).get(id) });

export const localesQuery = listQuery<LocaleRow>({
  typeName: 'Locale',
  table: Locale.tableName,
  permission: 'LOCALE_VIEW',
  node: () => LocaleObject,
  description: 'Every locale of the catalogue; filter `supported eq "true"` for the instance\'s.',
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Locale', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    fullName: { column: 'full_name', kind: 'text', orderable: true },
    supported: { column: 'supported', kind: 'bool' },
    default: { column: 'is_default', kind: 'bool' },
  },
});

const LocalePayload = payloadType('LocalePayload', 'locale', () => LocaleObject);

type LocaleAction = (db: GraphQLContext['db'], id: number) => Promise<LocaleRow>;

function localeMutation(description: string, action: LocaleAction): GraphQLFieldConfig<unknown, GraphQLContext, { localeId: string }> {
  return {
    type: LocalePayload,
    description,
    args: { localeId: { type: new GraphQLNonNull(GraphQLID) } },
    async resolve(_root, { localeId }, ctx): Promise<{ locale: LocaleRow | null; errors: FieldError[] }> {
      requirePermission(ctx, 'LOCALE_EDIT');
      const id = legacyIdOf('Locale', localeId);
      if (id === undefined) return { locale: null, errors: [fieldError('localeId', localeId, 'Locale not found')] };
      try {
        const locale = await action(ctx.db, id);
        ctx.forget(LOADER);
        return { locale, errors: [] };
      } catch (err) {
        if (err instanceof AppError && err.status < 500)
          return { locale: null, errors: [fieldError('localeId', localeId, err.status === 404 ? 'Locale not found' : err.message)] };
        throw err;
      }
    },
  };
}

export const LocaleMutations = new GraphQLObjectType({
  name: 'LocaleMutations',
  fields: {
    enable: localeMutation('Let the instance use this locale for content.', enableLocale),
    disable: localeMutation('Stop offering this locale for new content (not the default).', disableLocale),
    setDefault: localeMutation("Make this supported locale the instance's default.", setDefaultLocale),
  },
});
