import test from 'ava';
import { MAX_PRIORITY, TenantShare } from '../../src/platform/queues/fairness.js';

/** The priority rule on its own: 1 + the jobs a tenant added to a queue in the last 10 seconds. */

test('when a tenant adds jobs, then each gets 1 + the jobs it added to that queue in the last 10 seconds, apart from other tenants and queues', (t) => {
  const share = new TenantShare();
  const now = 1_000_000_000;
  t.deepEqual(
    [1, 2, 3].map(() => share.priority('orders', 7, now)),
    [1, 2, 3],
  );
  t.is(share.priority('orders', 8, now), 1, 'another tenant counts apart');
  t.is(share.priority('course-templates', 7, now), 1, 'another queue counts apart');
  // 9.9 s later the three are still in the window; 10 s after them they are not.
  t.is(share.priority('orders', 7, now + 9_900), 4);
  t.is(share.priority('orders', 7, now + 10_000), 2, 'the first three fell out of the window; the one at 9.9 s is still in');
  t.is(share.priority('orders', 7, now + 200_000), 1);
});

test("when a tenant floods a queue, then its priority stops at BullMQ's largest", (t) => {
  const share = new TenantShare();
  let last = 0;
  for (let i = 0; i < MAX_PRIORITY + 5; i++) last = share.priority('orders', 1, 5_000);
  t.is(last, MAX_PRIORITY);
});
