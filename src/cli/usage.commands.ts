import { usageSince } from '../kit/rest/usage.data.js';
import { userEmails } from '../modules/users/users.data.js';
import { UsageError, inTenant } from './command.js';
import type { Runners } from './manifest.js';

/** Who still calls the retired REST API. */
export const runners: Runners<'usage'> = {
  async 'legacy-usage'(rt, flags) {
    const output = await inTenant(rt, flags, async (db, tenant) => {
      const days = typeof flags.days === 'string' ? Number(flags.days) : 30;
      if (!Number.isInteger(days) || days < 1 || days > 3660) throw new UsageError('--days must be a whole number from 1 to 3660');
      // The platform table is schema-qualified: read it on the tenant transaction, one connection for the command.
      const rows = await usageSince(db, tenant.id, days);
      const emails = await userEmails(
        db,
        rows.map((r) => r.user_id),
      );
      const emailOf = new Map(emails.map((u) => [u.id, u.email]));
      return rows.map((r) => ({
        day: r.day,
        endpoint: r.endpoint,
        userId: r.user_id || null,
        email: emailOf.get(r.user_id) ?? null,
        calls: r.calls,
        lastCalledAt: r.last_called_at,
      }));
    });
    return { output };
  },
};
