import { DEMO, seedDemo } from '../seeds/demo.js';
import { startWorkers } from './app/workers.js';
import { createApp } from './app/web.js';
import { loadConfig, tenantBaseUrl, type Config } from './platform/config.js';
import { startHttpServer } from './kit/http/server.js';
import { checkPortFree, listenError } from './kit/http/port.js';
import { exitOnBootError, onShutdownSignal } from './platform/process.js';
import { createRuntime } from './app/runtime.js';
import { migrateAll } from './platform/tenancy/migrate.js';

/** How this process is started, for the message of a taken port. */
const START_COMMAND = 'npm start';

/**
 * `npm start`: everything in one process for local use. Without DATABASE_URL it runs on the
 * embedded PostgreSQL (BullMQ on its PostgreSQL backend unless REDIS_URL is set), migrates,
 * seeds the demo tenant on first run, and serves web and worker together.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // Before the database starts: a second `npm start` says its port is taken at once.
  await checkPortFree(config.port, config.host, START_COMMAND);
  const rt = await createRuntime(config, 'lectern');
  const migrated = await migrateAll(rt.knex, { concurrency: config.migrateConcurrency });
  if (migrated.failed.length) throw new Error(`migrations failed for tenants: ${migrated.failed.join(', ')}`);
  const seeded = config.seedDemo ? await seedDemo(rt.knex, config) : undefined;
  const workers = startWorkers(rt);
  const http = await startHttpServer(createApp(rt), config.port, config.host, config).catch(async (err: unknown) => {
    // Taken since the check: stop what started (an embedded PostgreSQL among it), then say so.
    await workers.close();
    await rt.close();
    throw listenError(err, config.port, START_COMMAND);
  });

  // Before the banner: a Ctrl-C or SIGTERM before a handler is installed kills the process at
  // once (the signal's default), leaving the embedded PostgreSQL running.
  onShutdownSignal(rt.log, async () => {
    await http.close(config.shutdownTimeoutMs, config.shutdownIdleGraceMs);
    await workers.close();
    await rt.close();
  });

  const demoReachable = config.seedDemo && (seeded || (await rt.registry.bySlug(DEMO.slug)));
  const lines = [
    '',
    `Lectern is running: web and worker in one process (database: ${rt.embedded ? 'embedded PostgreSQL' : 'DATABASE_URL'}, queues: ${rt.queues.kind})`,
    `  Address:             http://localhost:${http.port}   (GET /healthz, /readyz)`,
    ...metricsLines(config, `http://localhost:${http.port}/metrics`),
    ...(demoReachable
      ? [
          `  Demo tenant REST:    ${tenantBaseUrl({ ...config, port: http.port }, DEMO.slug)}/api/v2`,
          `  Demo credentials:    ${DEMO.email} / ${DEMO.password}`,
        ]
      : []),
    '  Stop with Ctrl-C.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/**
 * How to read `/metrics` (see metricsAccess in src/app/health.ts): it answers the METRICS_TOKEN as a
 * bearer token (what a Prometheus scrape sends), or a platform administrator's Basic credentials.
 */
function metricsLines(config: Config, url: string): string[] {
  const indent = ' '.repeat(23);
  return config.metricsToken
    ? [
        `  Metrics:             ${url}   (Authorization: Bearer <METRICS_TOKEN>,`,
        `${indent}or a platform administrator's curl -u <email>:<password>)`,
      ]
    : [
        `  Metrics:             ${url}   (platform administrators only: curl -u <email>:<password>;`,
        `${indent}npm run cli -- admins:create makes one; or set METRICS_TOKEN and send it as a Bearer token)`,
      ];
}

main().catch(exitOnBootError);
