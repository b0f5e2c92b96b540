import type { Config } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { createPlatformRuntime, type PlatformRuntime } from '../platform/runtime.js';
import { LegacyUsageRecorder } from '../kit/rest/usage.js';
import { PasswordGuard } from '../modules/users/password-guard.js';


/** A process's runtime: the platform's parts, and what the web faces share (usage counts, the password guard). */
export interface Runtime extends PlatformRuntime {
  /** Legacy REST call counts (web only; flushed on close). */
  legacyUsage: LegacyUsageRecorder;
  /** Every password check of this process (REST Basic auth, the dashboard, the sign-in pages) goes through it. */
  passwords: PasswordGuard;
}

export async function createRuntime(config: Config, name: string, log = createLogger(config, name)): Promise<Runtime> {
  const platform = await createPlatformRuntime(config, name, log);
  const legacyUsage = new LegacyUsageRecorder(platform.knex, log);
  const passwords = new PasswordGuard(platform.knex, { concurrency: config.passwordCheckConcurrency, queue: config.passwordCheckQueue, addressFreeFailures: config.passwordFailuresPerAddress, namespace: config.queuePrefix });
  return {
    ...platform,
    legacyUsage,
    passwords,
    async close() {
      await legacyUsage.stop();
      await platform.close();
    },
  };
}
