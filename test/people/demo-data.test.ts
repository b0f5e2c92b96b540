import test from 'ava';
import { seedDemoContent } from '../../seeds/demo.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The demo (issue 25, item 7): every people, schedule and reference root answers something real on
 * an instance seeded as `npm start` seeds its demo, through the API as integrators read it.
 */
let f: GraphQLFixture;

test.before(async () => {
  f = await graphqlFixture('demop');
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => seedDemoContent(db));
});
test.after.always(async () => f?.close());

test('when the demo is seeded, then instructors, a partner account with its address, learners with attendance, sessions with venues and staff, venues and reference data answer', async (t) => {
  const d = await f.data(
    f.admin,
    `{
      instructors: contacts(filters: [{field: isInstructor, operation: eq, value: "true"}], first: 10) { edges { node { firstName } } }
      admins: contacts(filters: [{field: isAdmin, operation: eq, value: "true"}], first: 10) { edges { node { firstName } } }
      partners: accounts(filters: [{field: isPartner, operation: eq, value: "true"}], first: 10) { edges { node { name postalAddresses { usage lines } } } }
      billing: accounts(first: 50) { edges { node { postalAddresses { usage } } } }
      learners(filters: [{field: lifecycleState, operation: eq, value: "active"}], first: 100) { edges { node { attendance { sessionDetail { edges { node { attended } } } } } } }
      cancelled: learners(filters: [{field: lifecycleState, operation: eq, value: "cancelled"}], first: 10) { edges { node { id } } }
      events(first: 50) { edges { node { sessions { edges { node { lifecycleState venue { name } } } } staff { edges { node { staffType isPrimary } } } } } }
      venues(first: 50) { edges { node { name location { name } } } }
      priceLevels { edges { node { name description } } }
      currencies(filters: [{field: isActive, operation: eq, value: "true"}]) { edges { node { code } } }
      regions { edges { node { code } } }
    }`,
  );
  const names = (list: { edges: { node: { firstName: string } }[] }) => list.edges.map((e) => e.node.firstName).sort();
  t.deepEqual(names(d.instructors), ['Chloe', 'Marcus']);
  t.true(d.admins.edges.length >= 1);
  t.is(d.partners.edges[0]?.node.name, 'Pinnacle Training Partners');
  t.true(
    d.partners.edges[0].node.postalAddresses.some((a: { usage: string; lines: string[] }) => a.usage === 'default' && a.lines.length === 2),
  );
  const usages = new Set(
    d.billing.edges.flatMap((e: { node: { postalAddresses: { usage: string }[] } }) => e.node.postalAddresses.map((a) => a.usage)),
  );
  t.deepEqual([...usages].sort(), ['billing', 'default', 'shipping']);
  const attended = d.learners.edges.flatMap(
    (e: { node: { attendance: { sessionDetail: { edges: { node: { attended: boolean } }[] } } } }) =>
      e.node.attendance.sessionDetail.edges.map((s) => s.node.attended),
  );
  t.true(attended.includes(true) && attended.includes(false), 'attendance both ways');
  t.true(d.cancelled.edges.length >= 1, 'a cancelled learner to reactivate');
  const sessions = d.events.edges.flatMap((e: { node: { sessions: { edges: { node: { lifecycleState: string; venue: unknown } }[] } } }) =>
    e.node.sessions.edges.map((s) => s.node),
  );
  t.true(
    d.events.edges.every((e: { node: { sessions: { edges: unknown[] } } }) => e.node.sessions.edges.length > 0),
    'every event has sessions',
  );
  t.deepEqual([...new Set(sessions.map((s: { lifecycleState: string }) => s.lifecycleState))].sort(), ['cancelled', 'draft', 'published']);
  t.true(sessions.some((s: { venue: unknown }) => s.venue !== null));
  const staff = d.events.edges.flatMap((e: { node: { staff: { edges: { node: { staffType: string; isPrimary: boolean } }[] } } }) =>
    e.node.staff.edges.map((s) => s.node),
  );
  t.true(staff.some((s: { staffType: string; isPrimary: boolean }) => s.staffType === 'instructor' && s.isPrimary));
  t.true(staff.some((s: { staffType: string }) => s.staffType === 'administrator'));
  t.true(d.venues.edges.length >= 4);
  t.true(d.priceLevels.edges.every((e: { node: { description: string | null } }) => e.node.description));
  t.true(d.currencies.edges.some((e: { node: { code: string } }) => e.node.code === 'GBP'));
  t.deepEqual(d.regions.edges.map((e: { node: { code: string } }) => e.node.code).sort(), ['IE', 'UK']);
});
