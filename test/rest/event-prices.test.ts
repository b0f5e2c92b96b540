import test from 'ava';
import { insertPriceLevel, insertRegion, priceLevelNamed, setPrice } from '../../src/modules/pricing/pricing.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';
import { readStatements } from '../helpers/statements.js';

/**
 * A public event's `prices`: its public prices (a price level, a currency, an optional region),
 * the same rows the WebLink API and Core GraphQL read; an event without any keeps the one entry
 * made from its own price. A page of events reads its prices in one statement.
 */
let f: RestFixture;
let template: number;
let levels: { normal: number; early: number };
let ireland: { id: number; code: string; name: string };

test.serial.before(async () => {
  f = await restFixture('rprc');
  template = (await f.api('POST', 'event/event_templates', { title: 'First Aid at Work', code: 'FAW' })).json.id;
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    levels = { normal: (await priceLevelNamed(db, 'Normal'))!.id, early: (await insertPriceLevel(db, 'Early bird')).id };
    const region = await insertRegion(db, { code: 'IE', name: 'Ireland' });
    ireland = { id: region.id, code: region.code, name: region.name };
  });
});
test.after.always(async () => f?.close());

async function newEvent(body: Record<string, unknown> = {}): Promise<number> {
  const res = await f.api('POST', 'event/public_events', {
    event_template_id: template,
    start_date: '2027-03-10',
    end_date: '2027-03-12',
    ...body,
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.json.id as number;
}

const setPrices = (eventId: number, prices: { level: number; currency: string; amount: string; region?: number }[]) =>
  withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    for (const p of prices)
      await setPrice(db, 'event', eventId, {
        price_level_id: p.level,
        currency_code: p.currency,
        amount: p.amount,
        region_id: p.region ?? null,
      });
  });

test.serial(
  "when an event has public prices, then prices lists each with its level and region, and price and currency_code stay the event's own",
  async (t) => {
    const id = await newEvent({ price: 395, currency_code: 'GBP' });
    await setPrices(id, [
      { level: levels.early, currency: 'GBP', amount: '350' },
      { level: levels.normal, currency: 'EUR', amount: '450.50', region: ireland.id },
      { level: levels.normal, currency: 'GBP', amount: '395' },
    ]);
    const res = await f.api('GET', `event/public_event/${id}`);
    t.is(res.status, 200, res.text);
    t.is(res.json.price, 395);
    t.is(res.json.currency_code, 'GBP');
    t.deepEqual(res.json.prices, [
      { price: 395, currency_code: 'GBP', price_level: { id: levels.normal, name: 'Normal' }, region: null },
      { price: 450.5, currency_code: 'EUR', price_level: { id: levels.normal, name: 'Normal' }, region: ireland },
      { price: 350, currency_code: 'GBP', price_level: { id: levels.early, name: 'Early bird' }, region: null },
    ]);
  },
);

test.serial('when an event has no public prices, then prices is the one entry of its own price, or empty without one', async (t) => {
  const priced = await newEvent({ price: 120, currency_code: 'EUR' });
  const free = await newEvent();
  t.deepEqual((await f.api('GET', `event/public_event/${priced}`)).json.prices, [{ price: 120, currency_code: 'EUR' }]);
  t.deepEqual((await f.api('GET', `event/public_event/${free}`)).json.prices, []);
});

test.serial('when a price changes, then the event shows the new amount (the same row, not a second one)', async (t) => {
  const id = await newEvent({ price: 200, currency_code: 'GBP' });
  await setPrices(id, [{ level: levels.normal, currency: 'GBP', amount: '200' }]);
  await setPrices(id, [{ level: levels.normal, currency: 'GBP', amount: '225' }]);
  t.deepEqual((await f.api('GET', `event/public_event/${id}`)).json.prices, [
    { price: 225, currency_code: 'GBP', price_level: { id: levels.normal, name: 'Normal' }, region: null },
  ]);
});

/** The statements of one REST call, and its answer. */
async function statementsOf(path: string): Promise<{ sql: string[]; json: { id: number; prices: unknown[] }[] }> {
  const { sql, result } = await readStatements(f.ctx.rt.knex, async () => {
    const res = await f.api('GET', path);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return res.json;
  });
  return { sql, json: result };
}

test.serial('when a page of events is listed, then their prices take one statement, whatever the page size', async (t) => {
  for (let i = 0; i < 12; i++) {
    const id = await newEvent({ code: `PAGE-${i}`, price: 100 + i, currency_code: 'GBP' });
    if (i % 2 === 0)
      await setPrices(id, [
        { level: levels.normal, currency: 'GBP', amount: String(100 + i) },
        { level: levels.normal, currency: 'EUR', amount: String(120 + i), region: ireland.id },
      ]);
  }
  await statementsOf('event/public_events?code__like=PAGE-%25&_limit=2'); // warms the credentials cache
  const small = await statementsOf('event/public_events?code__like=PAGE-%25&_limit=2&_order=id');
  const large = await statementsOf('event/public_events?code__like=PAGE-%25&_limit=12&_order=id');
  t.is(small.json.length, 2);
  t.is(large.json.length, 12);
  t.is(large.sql.length, small.sql.length, `statements: ${small.sql.length} for 2 events, ${large.sql.length} for 12`);
  t.is(large.sql.filter((s) => /\bprices\b/.test(s)).length, 1);
  // Events with prices show them, the others their own price.
  t.deepEqual(
    large.json.map((e) => e.prices.length),
    [2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1],
  );
  t.deepEqual(large.json[1]!.prices, [{ price: 101, currency_code: 'GBP' }]);
});
