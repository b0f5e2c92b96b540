import type { Config } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { createPlatformRuntime, type PlatformRuntime } from '../platform/runtime.js';
import { LegacyUsageRecorder } from '../kit/rest/usage.js';
import { PasswordGuard } from '../modules/users/password-guard.js';
import { ChangeListener, ListenedCache } from '../platform/db/change-listener.js';
import type { ActiveUser } from '../modules/users/users.data.js';
import { identityChangesCounted } from '../platform/tenancy/access-generation.js';
import type { AccessTokenCheck } from '../modules/oauth/oauth.data.js';

/** A process's runtime: the platform's parts, and what the web faces share (usage counts, the password guard). */
export interface Runtime extends PlatformRuntime {
  /** Legacy REST call counts (web only; flushed on close). */
  legacyUsage: LegacyUsageRecorder;
  /** Every password check of this process (REST Basic auth, the dashboard, the sign-in pages) goes through it. */
  passwords: PasswordGuard;
  /**
   * Active users with their permissions, by tenant schema and email or id (REST Basic auth, Core
   * GraphQL): forgotten within moments of any change to a tenant's users or roles, in every
   * process (the database announces it; see ChangeListener).
   */
  identities: ListenedCache<ActiveUser>;
  /** The database's announcements of changes to users and tokens (connects on first use). */
  changes: ChangeListener;
  /** Access tokens checked, by hash (Core GraphQL): forgotten on any revocation, early expiry or client change. */
  accessTokens: ListenedCache<AccessTokenCheck>;
}

export async function createRuntime(config: Config, name: string, log = createLogger(config, name)): Promise<Runtime> {
  const platform = await createPlatformRuntime(config, name, log);
  const legacyUsage = new LegacyUsageRecorder(platform.knex, log);
  const passwords = new PasswordGuard(platform.knex, {
    concurrency: config.passwordCheckConcurrency,
    queue: config.passwordCheckQueue,
    addressFreeFailures: config.passwordFailuresPerAddress,
    namespace: config.queuePrefix,
  });
  // Connects on first use only: workers and the CLI never authenticate requests. LISTEN needs a
  // session of its own, which a pooler in transaction mode does not give: the direct URL.
  const changes = new ChangeListener(platform.directDatabaseUrl, log);
  const identities = new ListenedCache<ActiveUser>(changes, {
    max: config.identityCacheMax,
    ttlMs: config.identityCacheTtlMs,
    announced: (schema) => identityChangesCounted(platform.knex, schema),
  });
  const accessTokens = new ListenedCache<AccessTokenCheck>(changes, { max: config.identityCacheMax, ttlMs: config.identityCacheTtlMs });
  // Tenant and portal lookups are forgotten on the database's word too (a web process listens).
  platform.registry.listenTo(changes);
  // A tenant's users are forgotten when it announces a change (so a permission granted is seen
  // at once). Tokens are not: a revocation anywhere would drop every tenant's, and each request
  // checks its token against its tenant's access generation anyway (ListenedCache).
  changes.onChange((payload) => {
    if (payload.startsWith('users:')) identities.forget(payload.slice('users:'.length));
  });
  return {
    ...platform,
    legacyUsage,
    passwords,
    identities,
    accessTokens,
    changes,
    async close() {
      await changes.stop();
      await legacyUsage.stop();
      await platform.close();
    },
  };
}
