import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type GraphQLFieldConfig,
} from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput } from '../../kit/graphql/errors.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { addPrice } from './pricing.service.js';
import { listQuery, wholeConnection, type ListSpec } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, registerNode } from '../../kit/graphql/node.js';
import { refField, requireAnyPermission, requirePermission } from '../../kit/graphql/permissions.js';
import { financialUnitOf, knownCurrencies, type FinancialUnit as Unit } from './financial-units.js';
import { taxTypeById } from '../tax-types/index.graphql.js';
import type { TaxTypeRow } from '../tax-types/index.js';
import {
  Currency as CurrencyModel,
  currencyList,
  currencyRows,
  PriceLevel as PriceLevelModel,
  Region as RegionModel,
  priceLevelsByIds,
  priceOwnerId,
  pricesOf,
  regionCards,
  regionsByIds,
  type CurrencyListRow,
  type PriceLevelRow,
  type PriceOwner,
  type PriceRow,
  type RegionCard,
} from './pricing.data.js';

/**
 * Prices in Core GraphQL, as integrations read a course template's `publicPrices` and a learning
 * path's `prices` (real-clients.md section 3): `{ id amount priceLevel { id legacyId name }
 * financialUnit { name __typename ... on Currency { symbol } } region { id name code company
 * { id name } defaultTax { effectiveRate } } }`. Amounts are `Decimal`: exact, written as strings
 * (`"495.00"`). A record's prices are read with it (its view permission); a region's company and
 * tax are the CRM's and the tax types' records, read with COMPANY_VIEW and TAX_TYPE_VIEW.
 *
 * The reference data behind prices (real-clients.md section 5.D): `priceLevels`, `currencies`
 * (every ISO 4217 currency, `isActive` when it is one of the instance's in use) and `regions`,
 * so a client finds the ids `event.addPrices` and `courseTemplate.addPublicPrices` take. They are
 * read by whoever reads prices: a role with COURSE_TEMPLATE_VIEW, EVENT_VIEW or LEARNING_PATH_VIEW.
 */

/** Who may read price levels, currencies and regions: whoever reads some record's prices. */
export const PRICE_READERS = ['COURSE_TEMPLATE_VIEW', 'EVENT_VIEW', 'LEARNING_PATH_VIEW'] as const;

const DECIMAL = /^-?\d{1,15}(\.\d{1,10})?$/;

/** A decimal as text, checked: `"495.00"`, `"12"`, `-3.5` (a number is taken as it prints). */
function decimalOf(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !DECIMAL.test(text))
    throw badInput(`Decimal: ${JSON.stringify(value)?.slice(0, 50)} is not a decimal number (write it as a string, e.g. "495.00")`);
  return text;
}

/**
 * `Decimal`: an exact decimal number. Answered as a string with the digits stored (`"495.00"`);
 * accepted as a string (`"495.00"`, as integrations send it) or a number.
 */
export const Decimal = new GraphQLScalarType<string, string>({
  name: 'Decimal',
  description: 'An exact decimal number, written as a string: "495.00". Input: a string or a number.',
  serialize: (v) => String(v),
  parseValue: decimalOf,
  parseLiteral(ast) {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return decimalOf(ast.value);
    throw badInput('Decimal: write it as a string, e.g. "495.00"');
  },
});

/** What an amount is counted in: a currency (the only kind Lectern has). */
export const FinancialUnitInterface = new GraphQLInterfaceType({
  name: 'FinancialUnit',
  description: 'What an amount is counted in. Select `... on Currency { symbol }` for a currency.',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: new GraphQLNonNull(GraphQLString) } },
  resolveType: () => 'Currency',
});

/** This request's instance currencies, code to whether each is in use (a small table: read once, whole). */
const currencyStates = (ctx: GraphQLContext): Promise<Map<string, boolean>> =>
  ctx.loader('Currency.states', (db) => {
    let all: Promise<Map<string, boolean>> | undefined;
    return () => (all ??= currencyRows(db).then((rows) => new Map(rows.map((r) => [r.code, r.is_active]))));
  })();

/** A currency as a price names it, or as the currencies list reads it (with whether it is active). */
type CurrencySource = Pick<Unit, 'code' | 'name'> & { is_active?: boolean };

/** A currency: id `Currency:<ISO code>` in base64 (`Q3VycmVuY3k6R0JQ` is GBP). */
export const CurrencyObject = new GraphQLObjectType<CurrencySource, GraphQLContext>({
  name: 'Currency',
  interfaces: [FinancialUnitInterface],
  fields: {
    id: {
      type: new GraphQLNonNull(GraphQLID),
      description: 'The `financialUnitId` that event.addPrices and courseTemplate.addPublicPrices take.',
      resolve: (u) => Buffer.from(`Currency:${u.code}`, 'utf8').toString('base64'),
    },
    name: { type: new GraphQLNonNull(GraphQLString), description: 'Its English name: "British Pound".' },
    code: { type: new GraphQLNonNull(GraphQLString), description: 'ISO 4217: GBP.' },
    symbol: { type: new GraphQLNonNull(GraphQLString), description: '£', resolve: (u) => financialUnitOf(u.code).symbol },
    isActive: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description:
        "Whether it is one of the instance's currencies in use. The first price in a currency makes it one, active; a currency the instance has none of is not active.",
      resolve: async (u, _a, ctx) => u.is_active ?? (await currencyStates(ctx)).get(u.code) ?? false,
    },
  },
});

/** The ISO code a Currency id (or a bare code) names, upper case; undefined when it names none. */
export function currencyCodeOf(value: string): string | undefined {
  if (/^[A-Za-z]{3}$/.test(value)) return value.toUpperCase();
  const m = /^Currency:([A-Z]{3})$/.exec(Buffer.from(value, 'base64').toString('utf8'));
  return m?.[1];
}

/** A price level (every instance has "Normal", the one websites show): id `PriceLevel:<n>`. */
export const PriceLevelObject = new GraphQLObjectType<PriceLevelRow>({
  name: 'PriceLevel',
  interfaces: [NodeInterface],
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (l) => toGlobalId('PriceLevel', l.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (l) => l.id },
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString, description: 'What the level is for; null: nothing said.' },
  },
});

/** The company that trades in a region (a CRM company): id `Company:<n>`. */
const CompanyObject = new GraphQLObjectType<{ id: number; name: string }>({
  name: 'Company',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (c) => toGlobalId('Company', c.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (c) => c.id },
    name: { type: new GraphQLNonNull(GraphQLString) },
  },
});

/** A tax as a region applies it by default: a tax type (id `TaxType:<n>`) and its rate. */
const TaxObject = new GraphQLObjectType<TaxTypeRow>({
  name: 'Tax',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (t) => toGlobalId('TaxType', t.id) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    effectiveRate: { type: new GraphQLNonNull(GraphQLFloat), description: 'Percent, e.g. 20 for 20 %.', resolve: (t) => Number(t.rate) },
  },
});

/** Where a price applies: id `Region:<n>`. */
export const RegionObject = new GraphQLObjectType<RegionCard, GraphQLContext>({
  name: 'Region',
  interfaces: [NodeInterface],
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (r) => toGlobalId('Region', r.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (r) => r.id },
    code: { type: new GraphQLNonNull(GraphQLString) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    company: {
      type: CompanyObject,
      description: 'The company that trades there (COMPANY_VIEW); read with the region.',
      resolve(r, _a, ctx) {
        if (r.company_id === null) return null;
        requirePermission(ctx, 'COMPANY_VIEW');
        return { id: r.company_id, name: r.company_name ?? '' };
      },
    },
    defaultTax: refField(
      TaxObject,
      'TAX_TYPE_VIEW',
      (r: RegionCard) => r.default_tax_type_id,
      (ctx, id) => taxTypeById(ctx, id),
      'The tax its prices are sold under by default (TAX_TYPE_VIEW).',
    ),
  },
});

const priceLevelById = (ctx: GraphQLContext, id: number) =>
  ctx.loader('PriceLevel.byId', (db) => byId((ids) => priceLevelsByIds(db, ids))).load(id);
/** This request's region with this id, null when there is none (a page's regions, of prices and of locations, in one statement). */
export const regionById = (ctx: GraphQLContext, id: number | null): Promise<RegionCard | null> =>
  id === null
    ? Promise.resolve(null)
    : ctx
        .loader('Region.byId', (db) => byId((ids) => regionsByIds(db, ids)))
        .load(id)
        .then((r) => r ?? null);

registerNode('PriceLevel', { permission: PRICE_READERS, load: (ctx, id) => priceLevelById(ctx, id) });
registerNode('Region', { permission: PRICE_READERS, load: async (ctx, id) => (await regionById(ctx, id)) ?? undefined });

/** A list of reference data, read by {@link PRICE_READERS}: the check comes before the list reads anything. */
function readByPriceReaders<Row extends { id: number }>(spec: Omit<ListSpec<Row>, 'permission'>) {
  const list = listQuery<Row>({ ...spec, permission: null });
  const resolve = list.resolve!;
  return {
    ...list,
    resolve: (root: unknown, args: Record<string, unknown>, ctx: GraphQLContext, info: Parameters<typeof resolve>[3]) => {
      requireAnyPermission(ctx, PRICE_READERS);
      return resolve(root, args, ctx, info);
    },
  } satisfies typeof list;
}

/**
 * `priceLevels`: the instance's price levels (Normal first), `{ edges { node { id name
 * description } } }`; their ids are the `priceLevelId` prices take.
 */
export const priceLevelsQuery = readByPriceReaders<PriceLevelRow>({
  typeName: 'PriceLevel',
  table: PriceLevelModel.tableName,
  node: () => PriceLevelObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  description:
    "The instance's price levels, in the order they were added (Normal first). Needs COURSE_TEMPLATE_VIEW, EVENT_VIEW or LEARNING_PATH_VIEW.",
  fields: {
    id: { column: 'id', kind: 'id', refType: 'PriceLevel', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    description: { column: 'description', kind: 'text' },
  },
});

/** Which of `values` (Currency ids or ISO codes) name a currency, as ISO codes. */
const currencyCodesOf = (values: readonly unknown[]): string[] =>
  values.flatMap((v) => {
    const code = typeof v === 'string' ? currencyCodeOf(v) : undefined;
    return code ? [code] : [];
  });

/**
 * `currencies`: every currency there is (ISO 4217), each `isActive` when it is one of the
 * instance's in use; `filters: [{field: isActive, operation: eq, value: "true"}]` lists the
 * instance's. Their ids are the `financialUnitId` prices take.
 */
export const currenciesQuery = readByPriceReaders<CurrencyListRow>({
  typeName: 'Currency',
  table: CurrencyModel.tableName,
  from: (db) => currencyList(db, knownCurrencies()),
  node: () => CurrencyObject,
  defaultOrder: { field: 'code', direction: 'asc' },
  description:
    "Currencies (ISO 4217), by code; isActive: the instance's in use. Needs COURSE_TEMPLATE_VIEW, EVENT_VIEW or LEARNING_PATH_VIEW.",
  fields: {
    id: {
      column: 'code',
      kind: 'text',
      description: 'A Currency id (`Currency:GBP` in base64) or an ISO code.',
      operations: ['eq', 'ne', 'in', 'notin'],
      apply(q, _db, operation, value) {
        const codes = currencyCodesOf(Array.isArray(value) ? value : [value]);
        if (operation === 'eq' || operation === 'in') q.whereIn('t.code', codes);
        else q.whereNotIn('t.code', codes);
      },
    },
    code: { column: 'code', kind: 'text', orderable: true, normalize: (v) => v.toUpperCase() },
    name: { column: 'name', kind: 'text', orderable: true },
    isActive: { column: 'is_active', kind: 'bool', orderable: true, description: "'true': the instance's currencies in use." },
  },
});

/**
 * `regions`: where prices apply, by name; a region's id is the `regionId` that
 * `courseTemplate.addPublicPrices` requires.
 */
export const regionsQuery = readByPriceReaders<RegionCard>({
  typeName: 'Region',
  table: RegionModel.tableName,
  from: (db) => regionCards(db),
  node: () => RegionObject,
  defaultOrder: { field: 'name', direction: 'asc' },
  description: 'Regions prices apply in, by name. Needs COURSE_TEMPLATE_VIEW, EVENT_VIEW or LEARNING_PATH_VIEW.',
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Region', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
  },
});

/** One price: an amount in a currency at a price level, maybe for a region. Id `Price:<n>`. */
export const PriceObject = new GraphQLObjectType<PriceRow, GraphQLContext>({
  name: 'Price',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (p) => toGlobalId('Price', p.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (p) => p.id },
    amount: { type: new GraphQLNonNull(Decimal), description: 'Exact, as a string: "495.00".' },
    priceLevel: { type: new GraphQLNonNull(PriceLevelObject), resolve: (p, _a, ctx) => priceLevelById(ctx, p.price_level_id) },
    financialUnit: {
      type: new GraphQLNonNull(FinancialUnitInterface),
      description: 'Its currency.',
      resolve: (p) => financialUnitOf(p.currency_code),
    },
    currency: {
      type: new GraphQLNonNull(CurrencyObject),
      description: 'Its currency (the same as financialUnit, typed).',
      resolve: (p) => financialUnitOf(p.currency_code),
    },
    region: {
      type: RegionObject,
      description: 'The region it applies in; null: everywhere.',
      resolve: (p, _a, ctx) => regionById(ctx, p.region_id),
    },
  },
});

/** A record's prices, all on one page. */
const prices = wholeConnection<PriceRow>('Price', PriceObject);

/** This request's prices of one kind of record, each record's by level, currency and region (a page's records in one statement). */
export const pricesOfRecord = (ctx: GraphQLContext, owner: PriceOwner, id: number): Promise<PriceRow[]> =>
  ctx
    .loader(`Price.of.${owner}`, (db) =>
      byOwner(
        (ids) => pricesOf(db, owner, ids),
        (p) => priceOwnerId(owner, p),
      ),
    )
    .load(id);

/** Drops this request's prices of `owner` records read so far: after a write, fields read them again. */
export const forgetPrices = (ctx: GraphQLContext, owner: PriceOwner): void => ctx.forget(`Price.of.${owner}`);

/** What `addPublicPrices` and `addPrices` answer: the price added, and FieldErrors. */
export type PricesPayload = { prices: PriceRow[] | null; errors: FieldError[] };

/** The price input of `addPublicPrices` / `addPrices`, ids as the caller wrote them. */
export interface PriceArgs {
  priceLevelId: string;
  amount: string;
  financialUnitId: string;
  regionId?: string | null;
}

/**
 * Adds a public price to a record the caller has found (a course template, an event): its ids
 * read back to rows, the problems answered with the ids the caller sent.
 */
export async function addPriceFor(ctx: GraphQLContext, owner: PriceOwner, ownerId: number, input: PriceArgs): Promise<PricesPayload> {
  const given: Record<string, unknown> = {
    priceLevelId: input.priceLevelId,
    financialUnitId: input.financialUnitId,
    regionId: input.regionId,
  };
  const { price, problems } = await addPrice(ctx.db, owner, ownerId, {
    priceLevelId: legacyIdOf('PriceLevel', input.priceLevelId),
    currency: currencyCodeOf(input.financialUnitId),
    regionId: input.regionId == null ? null : legacyIdOf('Region', input.regionId),
    amount: input.amount,
  });
  forgetPrices(ctx, owner);
  return {
    prices: price ? [price] : null,
    errors: toFieldErrors(problems.map((p) => (p.field in given ? { ...p, value: given[p.field] } : p))),
  };
}

/**
 * The prices of a record of the kind `owner` (its `id`) as a connection: a course template's
 * `publicPrices`, a learning path's `prices`. Every level, currency and region; ordered by level,
 * currency, region.
 */
export function pricesField(
  owner: PriceOwner,
  description = 'Its prices: every price level, currency and region.',
): GraphQLFieldConfig<{ id: number }, GraphQLContext> {
  return {
    type: new GraphQLNonNull(prices.type),
    description,
    resolve: async (record, _a, ctx) => prices.page(ctx, await pricesOfRecord(ctx, owner, record.id)),
  };
}
