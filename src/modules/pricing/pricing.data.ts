import type { ModelObject } from 'objection';
import type { Db, Knex } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Public prices, their price levels, regions and the instance's currencies: the only file that
 * names the `prices`, `price_levels`, `regions` and `currencies` tables. A price is an amount in a
 * currency at a price level (every instance has "Normal", the one websites show), optionally for
 * a region, on exactly one course template, event or learning path. A currency is the instance's
 * once it has a `currencies` row (the first price in it adds one, active); the row says whether
 * it is in use (`is_active`).
 *
 * @uses companies: a region is read with the name of the company that trades there, in one statement
 */

export class PriceLevel extends BaseModel {
  static override tableName = 'price_levels';

  declare id: number;
  declare name: string;
  /** What the level is for ("Charities and schools"); null: nothing said. */
  declare description: string | null;
  declare created_on: string;
}

/** One of the instance's currencies (ISO 4217, upper case) and whether it is in use. */
export class Currency extends BaseModel {
  static override tableName = 'currencies';
  static override get idColumn() {
    return 'code';
  }

  declare code: string;
  declare is_active: boolean;
}

export class Region extends BaseModel {
  static override tableName = 'regions';

  declare id: number;
  declare code: string;
  declare name: string;
  declare company_id: number | null;
  declare default_tax_type_id: number | null;
  declare created_on: string;
}

export class Price extends BaseModel {
  static override tableName = 'prices';

  declare id: number;
  declare course_template_id: number | null;
  declare event_id: number | null;
  declare learning_path_id: number | null;
  declare price_level_id: number;
  /** ISO 4217, upper case. */
  declare currency_code: string;
  declare region_id: number | null;
  /** numeric(12,2), as PostgreSQL returns it: a string. */
  declare amount: string;
  declare created_on: string;

  declare priceLevel?: PriceLevel;
  declare region?: Region;

  static override get relationMappings() {
    return {
      priceLevel: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: PriceLevel,
        join: { from: 'prices.price_level_id', to: 'price_levels.id' },
      },
      region: { relation: BaseModel.BelongsToOneRelation, modelClass: Region, join: { from: 'prices.region_id', to: 'regions.id' } },
    };
  }
}

export type PriceRow = ModelObject<Price>;
export type CurrencyRow = ModelObject<Currency>;
export type PriceLevelRow = ModelObject<PriceLevel>;
export type RegionRow = ModelObject<Region>;

/** The kinds of record that have prices, and the column that names one. */
export const PRICE_OWNERS = { course_template: 'course_template_id', event: 'event_id', learning_path: 'learning_path_id' } as const;
export type PriceOwner = keyof typeof PRICE_OWNERS;

/**
 * The prices of these records, each record's by level, currency and region (a page's batch);
 * with `level`, only that price level's (`Normal`, what websites show), in the same statement.
 */
export function pricesOf(db: Db, owner: PriceOwner, ownerIds: readonly number[], level?: string): Promise<PriceRow[]> {
  const q = db(`${Price.tableName} as p`)
    .whereIn(`p.${PRICE_OWNERS[owner]}`, ownerIds as number[])
    .orderBy(['p.price_level_id', 'p.currency_code', 'p.region_id', 'p.id'])
    .select('p.*');
  if (level !== undefined) q.join(`${PriceLevel.tableName} as l`, 'l.id', 'p.price_level_id').where('l.name', level);
  return q;
}

/** The record a price belongs to. */
export const priceOwnerId = (owner: PriceOwner, price: PriceRow): number => price[PRICE_OWNERS[owner]]!;

/** The price level with this name (`Normal`), if there is one. */
export async function priceLevelNamed(db: Db, name: string): Promise<PriceLevelRow | undefined> {
  return PriceLevel.query(db).findOne({ name });
}

export async function insertRegion(
  db: Db,
  row: Pick<RegionRow, 'code' | 'name'> & Partial<Pick<RegionRow, 'company_id' | 'default_tax_type_id'>>,
): Promise<RegionRow> {
  return Region.query(db).insert(row).returning('*') as unknown as Promise<RegionRow>;
}

/**
 * Sets one price of a record (one amount per level, currency and region): the amount replaces any
 * there was. A price in a currency the instance does not have yet makes it one of its currencies,
 * active (in the same statement); one it has keeps its state (one made inactive stays so).
 */
export async function setPrice(
  db: Db,
  owner: PriceOwner,
  ownerId: number,
  price: Pick<PriceRow, 'price_level_id' | 'currency_code' | 'amount'> & { region_id?: number | null },
): Promise<PriceRow> {
  const { rows } = await db.raw<{ rows: PriceRow[] }>(
    `with currency as (insert into ${Currency.tableName} (code, is_active) values (?, true) on conflict (code) do nothing)
     insert into prices (${PRICE_OWNERS[owner]}, price_level_id, currency_code, region_id, amount) values (?, ?, ?, ?, ?)
     on conflict (coalesce(course_template_id, 0), coalesce(event_id, 0), coalesce(learning_path_id, 0), price_level_id, currency_code, coalesce(region_id, 0))
     do update set amount = excluded.amount
     returning *`,
    [price.currency_code, ownerId, price.price_level_id, price.currency_code, price.region_id ?? null, price.amount],
  );
  return rows[0]!;
}

/** A price with the names of its level and region, as REST shows it. */
export interface NamedPriceRow extends PriceRow {
  price_level_name: string;
  region_code: string | null;
  region_name: string | null;
}

/**
 * The prices of these records with their level's and region's names, in one statement (a page's
 * batch): each record's by level, the prices for every region before a region's, then currency.
 */
export function namedPricesOf(db: Db, owner: PriceOwner, ownerIds: readonly number[]): Promise<NamedPriceRow[]> {
  if (!ownerIds.length) return Promise.resolve([]);
  return db(`${Price.tableName} as p`)
    .join(`${PriceLevel.tableName} as l`, 'l.id', 'p.price_level_id')
    .leftJoin(`${Region.tableName} as r`, 'r.id', 'p.region_id')
    .whereIn(`p.${PRICE_OWNERS[owner]}`, ownerIds as number[])
    .orderBy([`p.${PRICE_OWNERS[owner]}`, 'p.price_level_id', { column: 'p.region_id', nulls: 'first' }, 'p.currency_code', 'p.id'])
    .select<NamedPriceRow[]>('p.*', 'l.name as price_level_name', 'r.code as region_code', 'r.name as region_name');
}

/** Adds a price level (an instance has `Normal` from the start). */
export async function insertPriceLevel(db: Db, name: string, description: string | null = null): Promise<PriceLevelRow> {
  return PriceLevel.query(db).insert({ name, description }).returning('*') as unknown as Promise<PriceLevelRow>;
}

/** Says what a price level is for (null: nothing said). */
export async function describePriceLevel(db: Db, id: number, description: string | null): Promise<void> {
  await PriceLevel.query(db).findById(id).patch({ description });
}

/** Sets whether one of the instance's currencies is in use, adding it when it is not one yet. */
export async function setCurrencyActive(db: Db, code: string, isActive: boolean): Promise<void> {
  await db(Currency.tableName).insert({ code, is_active: isActive }).onConflict('code').merge(['is_active']);
}

/** The instance's currencies (a small table: read whole). */
export function currencyRows(db: Db): Promise<CurrencyRow[]> {
  return db(Currency.tableName).orderBy('code').select<CurrencyRow[]>('code', 'is_active');
}

/** A currency as the currencies list shows it: `id` is its place in the list (the list's tie-breaker only). */
export interface CurrencyListRow {
  id: number;
  code: string;
  name: string;
  is_active: boolean;
}

/**
 * Every currency there is: `known` (ISO 4217 with English names), and any other the instance
 * has a row for (its name its code); each active when the instance has it as active. One
 * statement, for a list query to filter, order and page (it aliases it).
 */
export function currencyList(db: Db, known: readonly { code: string; name: string }[]): Knex.QueryBuilder {
  const codes = known.map((k) => k.code);
  return db
    .from(
      db.raw(
        `(select u.code, u.name from unnest(?::text[], ?::text[]) as u(code, name)
          union all select c.code, c.code from ${Currency.tableName} c where c.code <> all(?::text[])) as k`,
        [codes, known.map((k) => k.name), codes],
      ),
    )
    .leftJoin(`${Currency.tableName} as ic`, 'ic.code', 'k.code')
    .select(
      db.raw('(row_number() over (order by k.code))::int as id'),
      'k.code',
      'k.name',
      db.raw('coalesce(ic.is_active, false) as is_active'),
    );
}

/** Regions, each with the name of the company that trades there: for a list query to filter, order and page (it aliases it). */
export function regionCards(db: Db): Knex.QueryBuilder {
  return db(`${Region.tableName} as r`).leftJoin('companies as c', 'c.id', 'r.company_id').select('r.*', 'c.name as company_name');
}

/** The currency most of the instance's prices are in (ties: the first code alphabetically), if it has prices. */
export async function mostUsedCurrency(db: Db): Promise<string | undefined> {
  const row = await db(Price.tableName)
    .groupBy('currency_code')
    .select('currency_code')
    .orderByRaw('count(*) desc, currency_code')
    .first<{ currency_code: string } | undefined>();
  return row?.currency_code;
}

/** Price levels by id (a page's batch). */
export function priceLevelsByIds(db: Db, ids: readonly number[]): Promise<PriceLevelRow[]> {
  return db(PriceLevel.tableName).whereIn('id', ids as number[]);
}

/** A region with the name of the company that trades there (null when it names none). */
export interface RegionCard extends RegionRow {
  company_name: string | null;
}

/** Regions by id, each with its company's name (a page's batch, one statement). */
export function regionsByIds(db: Db, ids: readonly number[]): Promise<RegionCard[]> {
  return db(`${Region.tableName} as r`)
    .leftJoin('companies as c', 'c.id', 'r.company_id')
    .whereIn('r.id', ids as number[])
    .select<RegionCard[]>('r.*', 'c.name as company_name');
}

/**
 * Keeps the records of a list (its rows aliased `t`, of the kind `owner`) that have (or, with
 * `has` false, have not) a price in one of `currencies` (ISO codes) and/or for one of `regionIds`.
 */
export function whereHasPrice(
  q: Knex.QueryBuilder,
  owner: PriceOwner,
  match: { currencies?: readonly string[]; regionIds?: readonly number[] },
  has = true,
): void {
  const exists = function (this: Knex.QueryBuilder) {
    this.select(1).from(`${Price.tableName} as hp`).whereRaw('hp.?? = t.id', [PRICE_OWNERS[owner]]);
    if (match.currencies) this.whereIn('hp.currency_code', match.currencies as string[]);
    if (match.regionIds) this.whereIn('hp.region_id', match.regionIds as number[]);
  };
  if (has) q.whereExists(exists);
  else q.whereNotExists(exists);
}

/** The price, or undefined. */
export function findPrice(db: Db, id: number): Promise<PriceRow | undefined> {
  return db(Price.tableName).where({ id }).first<PriceRow | undefined>();
}

/** Sets a price's amount. */
export async function updatePriceAmount(db: Db, id: number, amount: string): Promise<PriceRow> {
  const [row] = (await db(Price.tableName).where({ id }).update({ amount }).returning('*')) as PriceRow[];
  return row!;
}
