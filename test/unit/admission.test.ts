import test from 'ava';
import { WriteAdmission } from '../../src/kit/http/admission.js';

test('when more tenants write than the rate allows a second, then each still gets its first write of the second, and a flood its share only', async (t) => {
  const admission = new WriteAdmission({ writesPerSecond: 2, activeWindowMs: 2000 });
  // Tenant 1 floods first: it is alone, so never refused.
  for (let i = 0; i < 3; i++) t.true((await admission.admit(1)).ok, `flood write ${i} while alone`);
  // Five more tenants ask for one write each in the same second, past the process's 2 a second.
  for (const tenant of [2, 3, 4, 5, 6]) t.true((await admission.admit(tenant)).ok, `tenant ${tenant}'s first write`);
  // The flood is past its share now that others write: refused, with the seconds to wait.
  const refused = await admission.admit(1);
  t.false(refused.ok);
  if (!refused.ok) t.true(refused.retryAfterSeconds >= 1);
});
