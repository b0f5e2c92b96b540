import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import {
  findPrice,
  PRICE_OWNERS,
  priceLevelsByIds,
  regionsByIds,
  setPrice,
  updatePriceAmount,
  type PriceOwner,
  type PriceRow,
} from './pricing.data.js';
import { amountProblems, isCurrencyCode } from './pricing.rules.js';

/**
 * Writing prices: a record's price at a level, in a currency, maybe for a region (one amount per
 * level, currency and region: adding one that exists sets its amount), and a price's new amount.
 * Problems name the input fields `priceLevelId`, `financialUnitId`, `regionId`, `amount` and
 * `priceId`; a write with problems writes nothing. The caller checks that the record exists.
 * A price in a currency the instance does not have yet makes it one of its currencies, active
 * (`currencies` then lists it as such); one the instance has made inactive stays inactive.
 */

export interface NewPrice {
  /** undefined when the id given names no price level. */
  priceLevelId: number | undefined;
  /** ISO 4217; undefined when the id given names no currency. */
  currency: string | undefined;
  /** null: every region; undefined when the id given names no region. */
  regionId: number | null | undefined;
  amount: string;
}

export async function addPrice(
  db: Db,
  owner: PriceOwner,
  ownerId: number,
  input: NewPrice,
): Promise<{ price: PriceRow | null; problems: Problem[] }> {
  const problems: Problem[] = [...amountProblems('amount', input.amount)];
  if (input.priceLevelId === undefined || !(await priceLevelsByIds(db, [input.priceLevelId])).length)
    problems.push(problem('priceLevelId', input.priceLevelId ?? null, 'Price Level not found'));
  if (input.currency === undefined || !isCurrencyCode(input.currency))
    problems.push(problem('financialUnitId', input.currency ?? null, 'Currency not found'));
  if (input.regionId === undefined || (input.regionId !== null && !(await regionsByIds(db, [input.regionId])).length))
    problems.push(problem('regionId', input.regionId ?? null, 'Region not found'));
  if (problems.length) return { price: null, problems };
  const price = await setPrice(db, owner, ownerId, {
    price_level_id: input.priceLevelId!,
    currency_code: input.currency!,
    amount: input.amount,
    region_id: input.regionId ?? null,
  });
  return { price, problems: [] };
}

/** Sets the amount of a price of a record of the kind `owner` (`priceId` undefined: the id given names no price). */
export async function changePriceAmount(
  db: Db,
  owner: PriceOwner,
  priceId: number | undefined,
  amount: string,
): Promise<{ price: PriceRow | null; problems: Problem[] }> {
  const existing = priceId === undefined ? undefined : await findPrice(db, priceId);
  if (!existing || existing[PRICE_OWNERS[owner]] === null) return { price: null, problems: [problem('priceId', null, 'Price not found')] };
  const problems = amountProblems('amount', amount);
  if (problems.length) return { price: null, problems };
  return { price: await updatePriceAmount(db, existing.id, amount), problems: [] };
}
