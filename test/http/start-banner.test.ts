import test from 'ava';
import pg from 'pg';
import { freePort } from '../../src/platform/util/net.js';
import { dropQueueNamespace, hex, request, spawnTs, testConfig, waitFor } from '../helpers/harness.js';

/**
 * `npm start` (src/start.ts) on a database of its own, as a newcomer runs it: the banner says how
 * to reach `/metrics` (which credentials it takes, not just its path), and the demo it seeds shows
 * pictures that Lectern itself serves at the address the banner prints.
 */
const server = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL!;
const database = `lectern_banner_${hex()}`;
const databaseUrl = (() => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${database}`;
  return u.toString();
})();
const queuePrefix = `t${hex()}`;

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

test.before(async () => {
  await onServer(`create database ${database}`);
});
test.after.always(async () => {
  await dropQueueNamespace(testConfig({ QUEUE_PREFIX: queuePrefix }));
  await onServer(`drop database if exists ${database} with (force)`);
});

/** Runs `npm start`'s entry point until its banner is out; its port, banner, and a stop. */
async function start(env: Record<string, string> = {}) {
  const port = await freePort();
  const run = spawnTs('src/start.ts', [], {
    DATABASE_URL: databaseUrl,
    DATABASE_DIRECT_URL: '',
    QUEUE_PREFIX: queuePrefix,
    PORT: String(port),
    METRICS_TOKEN: '',
    ...env,
  });
  const banner = await waitFor(
    async () => {
      const { stdout } = run.output();
      if (run.child.exitCode !== null) throw new Error(`npm start ended: ${run.output().stderr}`);
      return stdout.includes('Stop with Ctrl-C.') && stdout;
    },
    'the banner',
    90_000,
    200,
  );
  return {
    port,
    banner,
    async stop() {
      run.child.kill('SIGTERM');
      await run.done;
    },
  };
}

/** The banner's line that starts with `label`, with the lines indented under it. */
const entry = (banner: string, label: string) => new RegExp(`^  ${label}:.*(?:\\n {23}\\S.*)*`, 'm').exec(banner)?.[0];

test.serial(
  'when npm start prints its banner, then /metrics comes with the credentials it takes, and the demo pictures load from the address printed',
  async (t) => {
    const lectern = await start();
    try {
      const metrics = entry(lectern.banner, 'Metrics') ?? '';
      const url = `http://localhost:${lectern.port}/metrics`;
      t.true(metrics.startsWith(`  Metrics:             ${url}`), lectern.banner);
      t.regex(metrics, /platform administrators only: curl -u <email>:<password>/);
      t.regex(metrics, /npm run cli -- admins:create/);
      t.regex(metrics, /METRICS_TOKEN and send it as a Bearer token/);
      t.regex(entry(lectern.banner, 'Address') ?? '', /\(GET \/healthz, \/readyz\)$/, 'no bare /metrics beside the open paths');
      // As the banner says: not open.
      t.is((await request(lectern.port, { path: '/metrics', host: 'localhost' })).status, 401);

      // The seeded demo's pictures: absolute addresses at this Lectern's address, each a picture.
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const urls = (await client.query<{ url: string }>('select url from tenant_demo.documents order by id')).rows.map((r) => r.url);
      await client.end();
      t.is(urls.length, 10);
      for (const picture of urls) {
        t.true(picture.startsWith(`http://localhost:${lectern.port}/demo-images/`), picture);
        const u = new URL(picture);
        const res = await request(lectern.port, { path: u.pathname, host: u.host });
        t.is(res.status, 200, picture);
        t.is(res.headers['content-type'], 'image/svg+xml', picture);
      }
    } finally {
      await lectern.stop();
    }
  },
);

test.serial('when METRICS_TOKEN is set, then the banner says to send it as a bearer token, and that works', async (t) => {
  const token = `banner-${hex(16)}`;
  const lectern = await start({ METRICS_TOKEN: token });
  try {
    const metrics = entry(lectern.banner, 'Metrics') ?? '';
    t.true(metrics.startsWith(`  Metrics:             http://localhost:${lectern.port}/metrics   (Authorization: Bearer <METRICS_TOKEN>,`));
    t.regex(metrics, /or a platform administrator's curl -u <email>:<password>\)$/);
    const res = await request(lectern.port, { path: '/metrics', host: 'localhost', headers: { authorization: `Bearer ${token}` } });
    t.is(res.status, 200);
    t.regex(res.text, /^# HELP /m);
  } finally {
    await lectern.stop();
  }
});
