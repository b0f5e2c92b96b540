import test from 'ava';
import { EVENT_LIST_SQL } from '../../src/modules/events/events.data.js';
import { eventCancelledAt, eventSoldOut, eventStatus, placesLeft } from '../../src/modules/events/events.rules.js';
import { placesBooked } from '../../src/modules/events/events.data.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { setupTestRuntime, type TestContext } from '../helpers/harness.js';

/**
 * The events list filters in SQL on what Event answers from JS rules (events.rules.ts): for the
 * same rows, the SQL of EVENT_LIST_SQL and the rules agree on places left, sold out, status and
 * cancelledAt, in a real tenant schema.
 */
let ctx: TestContext;
let tenant: Tenant;

test.before(async () => {
  ctx = await setupTestRuntime();
  tenant = await ctx.freshTenant('ers');
});
test.after.always(async () => ctx?.cleanup());

/** An event's columns the rules read, the places booked (and cancelled) on it. */
type Case = {
  max: number | null;
  soldOut: boolean;
  booked: number;
  cancelledPlaces?: number;
  lifecycle?: string;
  isCancelled?: boolean;
  cancelledAt?: string | null;
};
const CASES: Case[] = [
  { max: null, soldOut: false, booked: 3 },
  { max: null, soldOut: true, booked: 0 },
  { max: 5, soldOut: false, booked: 2, cancelledPlaces: 3 },
  { max: 5, soldOut: false, booked: 5 },
  { max: 5, soldOut: false, booked: 7 },
  { max: 5, soldOut: true, booked: 2 },
  { max: 0, soldOut: false, booked: 0 },
  { max: 3, soldOut: false, booked: 1, lifecycle: 'cancelled', isCancelled: true, cancelledAt: '2027-01-02T03:04:05.5' },
  { max: 3, soldOut: false, booked: 0, lifecycle: 'published', isCancelled: true },
  { max: 3, soldOut: false, booked: 0, lifecycle: 'draft' },
  { max: 3, soldOut: false, booked: 0, lifecycle: 'published', cancelledAt: '2027-01-02T03:04:05' },
];

test('when the list computes places left, sold out, status and cancelledAt in SQL, then each agrees with the rule Event answers it with', async (t) => {
  await withTenant(ctx.rt.knex, tenant, async (db) => {
    const ids: number[] = [];
    for (const c of CASES) {
      const [row] = await db('events')
        .insert({
          title: 'Case',
          type: 'public',
          delegates_max: c.max,
          is_sold_out: c.soldOut,
          lifecycle_state: c.lifecycle ?? 'published',
          is_cancelled: c.isCancelled ?? false,
          cancelled_at: c.cancelledAt ?? null,
        })
        .returning('id');
      const places = [c.booked, c.cancelledPlaces ?? 0];
      if (places[0]) await db('delegates').insert({ event_id: row.id, num_places: places[0] });
      if (places[1]) await db('delegates').insert({ event_id: row.id, num_places: places[1], cancelled_date: '2027-01-01' });
      ids.push(row.id);
    }
    const rows = await db('events as t')
      .whereIn('t.id', ids)
      .orderBy('t.id')
      .select(
        't.*',
        db.raw(`${EVENT_LIST_SQL.bookedPlaces} as sql_booked`),
        db.raw(`${EVENT_LIST_SQL.remainingPlaces} as sql_left`),
        db.raw(`${EVENT_LIST_SQL.isSoldOut} as sql_sold_out`),
        db.raw(`${EVENT_LIST_SQL.hasPlacesRemaining} as sql_has_places`),
        db.raw(`${EVENT_LIST_SQL.status} as sql_status`),
        db.raw(`${EVENT_LIST_SQL.isActive} as sql_active`),
        db.raw(`${EVENT_LIST_SQL.cancelledAt} as sql_cancelled_at`),
      );
    const booked = await placesBooked(db, ids);
    t.is(rows.length, CASES.length);
    for (const [i, row] of rows.entries()) {
      const n = booked.get(row.id) ?? 0;
      const label = JSON.stringify(CASES[i]);
      t.is(n, CASES[i]!.booked, label);
      t.is(row.sql_booked, n, label);
      t.is(row.sql_left, placesLeft(row, n), label);
      t.is(row.sql_sold_out, eventSoldOut(row, n), label);
      t.is(row.sql_has_places, !eventSoldOut(row, n), label);
      t.is(row.sql_status, eventStatus(row), label);
      t.is(row.sql_active, eventStatus(row) === 'Active', label);
      const sqlCancelledAt = row.sql_cancelled_at === null ? null : new Date(row.sql_cancelled_at).toISOString().replace(/\.\d{3}Z$/, 'Z');
      t.is(sqlCancelledAt, eventCancelledAt(row), label);
    }
    // The cases cover each answer.
    t.deepEqual([...new Set(rows.map((r: { sql_status: string }) => r.sql_status))].sort(), ['Active', 'Cancelled', 'Draft']);
    t.deepEqual([...new Set(rows.map((r: { sql_sold_out: boolean }) => r.sql_sold_out))].sort(), [false, true]);
  });
});
