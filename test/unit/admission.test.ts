import test from 'ava';
import { WriteAdmission, type Admission } from '../../src/kit/http/admission.js';

/** The waits of `n` writes of `tenant` asked for at the same moment (null: refused). */
const ask = (a: WriteAdmission, tenant: number, n: number, now: number): (number | null)[] =>
  Array.from({ length: n }, () => {
    const r: Admission = a.admit(tenant, now);
    return r.ok ? r.waitMs : null;
  });

test('when a tenant writes alone, then none of its writes waits or is refused, however many', (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 10, activeWindowMs: 2000, maxWaitMs: 1000 });
  t.deepEqual(ask(admission, 1, 100, 1_000_000), new Array<number>(100).fill(0));
});

test("when another tenant writes, then a flood's writes are paced at the rate the others leave, each waiting its turn, and refused past the longest wait", (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 11, activeWindowMs: 2000, maxWaitMs: 1000 });
  const now = 1_000_000;
  t.deepEqual(ask(admission, 2, 1, now), [0], 'the quiet tenant writes');
  const waits = ask(admission, 1, 14, now);
  // Others took 1 of the 11 this second: the flood gets 10 a second, one every 100 ms (not its
  // half, 5.5: what nobody else asks for is not held back), the first two at once (one interval
  // of slack), then each a turn later, up to a second's wait.
  t.deepEqual(waits, [0, 0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, null, null]);
  t.deepEqual(admission.admit(1, now), { ok: false, retryAfterSeconds: 1 });
  // The quiet tenant's next write does not wait behind the flood.
  t.deepEqual(ask(admission, 2, 1, now + 200), [0]);
});

test('when a flood is refused, then the refusals take no turns: its next turn, one interval on, is admitted', (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 10, activeWindowMs: 2000, maxWaitMs: 0 });
  const now = 1_000_000;
  ask(admission, 2, 1, now);
  t.deepEqual(ask(admission, 1, 5, now), [0, 0, null, null, null], 'without waiting: two at once, the rest refused');
  // At 9 a second, the third write's turn is 111 ms after the first two; had the three refusals
  // taken turns it would be 444 ms away.
  t.deepEqual(ask(admission, 1, 1, now + 120), [0]);
});

test('when two tenants flood together, then each gets half the rate', (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 10, activeWindowMs: 2000, maxWaitMs: 1000 });
  const now = 1_000_000;
  const steady = [0, 0];
  // Both ask for a write every 10 ms for 6 s; count what each is let in once both have written
  // for two seconds (at the start each reserves turns before the other's writes count).
  for (let ms = 0; ms < 6000; ms += 10)
    for (const tenant of [1, 2]) if (admission.admit(tenant, now + ms).ok && ms >= 2000) steady[tenant - 1]!++;
  const [one, two] = steady as [number, number];
  t.true(Math.abs(one - two) <= 2, `${one} and ${two}`);
  t.true(one + two >= 38 && one + two <= 42, `${one + two} admitted in 4 s at 10 a second`);
});

test('when more tenants write than the rate allows a second, then each still gets its first write of the second at once', (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 2, activeWindowMs: 2000, maxWaitMs: 0 });
  const now = 1_000_000;
  t.deepEqual(ask(admission, 1, 3, now), [0, 0, 0], 'alone: never held back');
  for (const tenant of [2, 3, 4, 5, 6]) t.deepEqual(ask(admission, tenant, 1, now + 1), [0], `tenant ${tenant}'s first write`);
  // Now that others write, its share is one a second: its turn and the one interval of slack,
  // then refused, with the seconds to wait.
  t.deepEqual(ask(admission, 1, 2, now + 2), [0, 0]);
  const refused = admission.admit(1, now + 3);
  t.false(refused.ok);
  if (!refused.ok) t.true(refused.retryAfterSeconds >= 1);
});

test('when admission is off (0 a second), then nothing waits or is refused', (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 0, activeWindowMs: 2000, maxWaitMs: 0 });
  ask(admission, 2, 1, 1_000_000);
  t.deepEqual(ask(admission, 1, 50, 1_000_000), new Array<number>(50).fill(0));
});

test('when the others stop writing for the active window, then the flood is alone again and no longer paced', (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 10, activeWindowMs: 2000, maxWaitMs: 0 });
  const now = 1_000_000;
  ask(admission, 2, 1, now);
  t.deepEqual(ask(admission, 1, 4, now), [0, 0, null, null], 'paced while tenant 2 writes');
  t.deepEqual(ask(admission, 1, 20, now + 2001), new Array<number>(20).fill(0), "past tenant 2's window: alone");
});
