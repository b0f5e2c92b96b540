import crypto from 'node:crypto';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * The one place that reads `process.env`. Everything else receives a {@link Config}.
 * Validation happens at boot so a bad deployment stops with a message naming the variable,
 * instead of failing later on the first request.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
  );

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `5s`, `30m`, `2h`, `5d` or `250ms`, in milliseconds. */
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration such as 250ms, 5s, 30m, 2h or 5d')
  .transform((v) => Number(/^\d+/.exec(v)![0]) * DURATION_UNITS[/[a-z]+$/.exec(v)![0]]!);

/** Durations separated by commas (a retry schedule), at most 20. */
const durations = z
  .string()
  .regex(/^\s*\d+(ms|s|m|h|d)(\s*,\s*\d+(ms|s|m|h|d)){0,19}\s*$/, 'must be durations separated by commas, such as 5s,5m,30m,2h')
  .transform((v) => v.split(',').map((d) => duration.parse(d.trim())));

/**
 * WEBHOOK_ALLOW: address ranges webhook deliveries may reach although they are private,
 * loopback or link-local (refused otherwise): `loopback` and CIDR blocks, separated by commas.
 */
const allowance = z.string().refine(
  (v) =>
    v
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .every((p) => {
        if (p === 'loopback' || p === 'none') return true;
        // Strictly: `10/8` and octal or hex forms are not what they seem (parseCIDR reads them).
        const [address = '', bits] = p.split('/');
        if (address.includes('.') && !ipaddr.IPv4.isValidFourPartDecimal(address)) return false;
        if (!ipaddr.isValid(address)) return false;
        const max = address.includes(':') ? 128 : 32;
        return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
      }),
  'must be loopback and/or addresses or CIDR blocks (10.1.0.0/16, fd00::/8), separated by commas',
);

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: intIn(0, 65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    REDIS_URL: url(['redis:', 'rediss:']).optional(),
    DATABASE_DIRECT_URL: url(['postgres:', 'postgresql:']).optional(),
    REDIS_CLUSTER: z.enum(['on', 'off']).default('off'),
    QUEUE_SHARDS: intIn(1, 256).default(1),
    BASE_DOMAIN: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'must be a bare domain name such as localhost or lectern.example.com')
      .default('localhost'),
    PUBLIC_SCHEME: z.enum(['http', 'https']).optional(),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    DATA_DIR: z.string().min(1).default('.lectern'),
    DB_POOL_MAX: intIn(1, 200).default(10),
    DB_CONNECTION_MAX_SCHEMAS: intIn(0, 10_000_000).default(1000),
    DB_CONNECTION_MAX_AGE: z.union([z.literal('0'), duration]).default(3_600_000),
    WORKER_CONCURRENCY: intIn(1, 100).default(5),
    WORKER_LOCK_MS: intIn(1000, 600000).default(30000),
    JOB_ATTEMPTS: intIn(1, 100).default(8),
    RECONCILE_AFTER_MS: intIn(500, 86400000).default(60000),
    APPLY_BATCH_SIZE: intIn(1, 1000).default(100),
    WEBLINK_RATE_LIMIT: intIn(1, 1000000).default(600),
    ADMISSION_WRITES_PER_SECOND: intIn(0, 1000000).default(50),
    ADMISSION_ACTIVE_WINDOW_MS: intIn(100, 60000).default(2000),
    ADMISSION_MAX_WAIT_MS: intIn(0, 10000).default(1000),
    STATEMENT_TIMEOUT_MS: intIn(100, 3600000).default(30000),
    WEBLINK_STATEMENT_TIMEOUT_MS: intIn(100, 3600000).default(5000),
    PROXY_HOPS: intIn(1, 10).default(1),
    QUEUE_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,30}$/, 'must be lowercase letters, digits or _ (max 31), starting with a letter')
      .default('lectern'),
    MIGRATE_CONCURRENCY: intIn(1, 64).default(4),
    PASSWORD_CHECK_CONCURRENCY: intIn(1, 64).default(2),
    PASSWORD_CHECK_QUEUE: intIn(0, 10000).default(100),
    PASSWORD_FAILURES_PER_ADDRESS: intIn(1, 1000000).default(50),
    BODY_LIMIT: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'must look like 512kb or 1mb')
      .default('1mb'),
    SHUTDOWN_TIMEOUT_MS: intIn(1000, 120000).default(25000),
    SHUTDOWN_IDLE_GRACE_MS: intIn(0, 10000).default(1500),
    HEADERS_TIMEOUT_MS: intIn(1000, 60000).default(10000),
    REQUEST_TIMEOUT_MS: intIn(1000, 300000).default(30000),
    OUTBOX_SWEEP_MS: intIn(100, 600000).default(5000),
    TENANT_CACHE_TTL_MS: intIn(0, 3600000).default(30000),
    IDENTITY_CACHE_TTL_MS: intIn(0, 3600000).default(300000),
    IDENTITY_CACHE_MAX: intIn(0, 1000000).default(20000),
    SEED_DEMO: bool.optional(),
    OAUTH_DEV_CALLBACK: bool.optional(),
    GRAPHIQL_SIGN_IN_TOKENS: bool.optional(),
    LEGACY_REST_API: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on'),
    WEBHOOK_TIMEOUT_MS: intIn(100, 60000).default(10000),
    WEBHOOK_RETRY_SCHEDULE: durations.default([5, 300, 1800, 7200, 18000, 36000, 36000].map((s) => s * 1000)),
    WEBHOOK_DISABLE_AFTER: duration.default(5 * 86_400_000),
    WEBHOOK_LOG_DAYS: intIn(1, 3650).default(30),
    WEBHOOK_ALLOW: allowance.optional(),
    WEBHOOK_CONCURRENCY: intIn(1, 500).default(25),
    WEBHOOK_ENDPOINT_CONCURRENCY: intIn(1, 100).default(4),
    WEBHOOK_SECRET_OVERLAP: duration.default(86_400_000),
    SMTP_URL: url(['smtp:', 'smtps:']).optional(),
    MAIL_FROM: z.string().min(3).optional(),
    METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
    SESSION_SECRET: z
      .string()
      .refine(
        (v) => v.split(',').every((k) => k.trim().length >= 32),
        'must be at least 32 characters (several, comma-separated, to rotate)',
      )
      .optional(),
    PORTAL_TOKEN_SECRET: z
      .string()
      .refine(
        (v) => v.split(',').every((k) => k.trim().length >= 32),
        'must be at least 32 characters (several, comma-separated, to rotate)',
      )
      .optional(),
  })
  .superRefine((e, ctx) => {
    // Every web process must sign session cookies with the same keys; a random one per process
    // would sign users out whenever a request lands on another dyno.
    if (e.NODE_ENV === 'production' && !e.SESSION_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'is required in production (at least 32 random characters)' });
    }
  });

type Env = z.infer<typeof schema>;

/** Signs portal tokens outside production when neither PORTAL_TOKEN_SECRET nor SESSION_SECRET is set; public, so never used in production. */
const DEVELOPMENT_PORTAL_TOKEN_KEY = 'lectern-development-portal-token-key-not-secret';

/**
 * The keys that sign portal tokens: PORTAL_TOKEN_SECRET's; else keys of their own derived from
 * SESSION_SECRET's (one purpose per key, and an upgrade needs no new setting: production already
 * requires SESSION_SECRET); else, outside production, a fixed development key, so tokens survive
 * a restart.
 */
function portalTokenKeys(e: Env): string[] {
  if (e.PORTAL_TOKEN_SECRET) return e.PORTAL_TOKEN_SECRET.split(',').map((k) => k.trim());
  if (e.SESSION_SECRET)
    return e.SESSION_SECRET.split(',').map((k) =>
      crypto.createHmac('sha256', k.trim()).update('lectern portal tokens').digest('base64url'),
    );
  return [DEVELOPMENT_PORTAL_TOKEN_KEY];
}

export interface WebhookSettings {
  /** WEBHOOK_TIMEOUT_MS: how long a receiver has to answer (10 s). */
  timeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE: the waits before each retry (5s,5m,30m,2h,5h,10h,10h): 8 attempts in all. */
  retryScheduleMs: number[];
  /** WEBHOOK_DISABLE_AFTER: a webhook whose every delivery failed for this long is disabled (5d). */
  disableAfterMs: number;
  /** WEBHOOK_LOG_DAYS: delivered deliveries are kept this many days (30). */
  logDays: number;
  /** WEBHOOK_ALLOW: otherwise refused ranges deliveries may reach (`loopback`, CIDR blocks); loopback on the embedded default. */
  allow: string;
  /** WEBHOOK_CONCURRENCY: deliveries a worker process sends at once, per shard (25). */
  concurrency: number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: requests to one receiver of one tenant a worker process has open at once (4): a slow receiver holds no more. */
  endpointConcurrency: number;
  /** WEBHOOK_SECRET_OVERLAP: how long a rotated-out signing secret keeps signing (24h). */
  secretOverlapMs: number;
}

export interface Config {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  /** Unset means: use the embedded PostgreSQL under {@link Config.dataDir}. */
  databaseUrl: string | undefined;
  /** Unset means: BullMQ runs on its PostgreSQL backend in the same database. */
  redisUrl: string | undefined;
  /**
   * A connection straight to PostgreSQL for what needs a session of its own (LISTEN for cache
   * invalidation and the PostgreSQL queue backend) when DATABASE_URL goes through a pooler in
   * transaction mode (PgBouncer). Unset means DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  /** REDIS_URL is one node of a Redis Cluster (REDIS_CLUSTER=on): queues and counters go through a cluster client. */
  redisCluster: boolean;
  /** Each queue is split into this many shards (Redis keys with a hash tag each); a tenant's jobs always go to one. */
  queueShards: number;
  baseDomain: string;
  publicScheme: 'http' | 'https';
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  dbPoolMax: number;
  /** A pooled connection that has served more distinct tenant schemas is replaced (0: never). */
  dbConnectionMaxSchemas: number;
  /** A pooled connection older than this (ms) is replaced when next handed out (0: never). */
  dbConnectionMaxAgeMs: number;
  workerConcurrency: number;
  /** How long a worker's claim on a job lasts without renewal; a killed worker's jobs run again after it. */
  workerLockMs: number;
  /** How often a job runs (failures with backoff, or stalls) before it fails for good. */
  jobAttempts: number;
  /** How long work may sit with no live queue job before the worker's reconciler queues it again. */
  reconcileAfterMs: number;
  /** Events re-inherited per transaction when a course template is re-applied to its events. */
  applyBatchSize: number;
  /** WebLink requests allowed per client address per minute (per tenant). */
  weblinkRateLimit: number;
  /** REST writes a web process admits per second, shared fairly by the tenants writing (0: no limit). */
  admissionWritesPerSecond: number;
  /** How long after its last write a tenant still counts as writing, for the fair share. */
  admissionActiveWindowMs: number;
  /** Longest a write past its tenant's share waits for its turn before it is refused. */
  admissionMaxWaitMs: number;
  /** Longest a statement of a REST, Core GraphQL or page request may run. */
  statementTimeoutMs: number;
  /** Longest a statement of a (public, anonymous) WebLink request may run. */
  weblinkStatementTimeoutMs: number;
  /**
   * Proxies in front of the web process that append to X-Forwarded-For (Heroku's router: 1).
   * In production the client address is the entry that many places from the right: entries
   * further left are whatever the client sent, and are never trusted.
   */
  proxyHops: number;
  queuePrefix: string;
  migrateConcurrency: number;
  /** argon2 password verifications at once per web process (each takes about 44 ms of a core). */
  passwordCheckConcurrency: number;
  /** Password verifications that may wait for a turn; more at once are refused with 503. */
  passwordCheckQueue: number;
  /** Failed password checks from one address (all accounts) in an hour before its attempts are slowed. */
  passwordFailuresPerAddress: number;
  bodyLimit: string;
  shutdownTimeoutMs: number;
  /** How long, on SIGTERM, idle keep-alive connections stay open for a request already on its way. */
  shutdownIdleGraceMs: number;
  /** The longest a client may take to send a request's headers, and the whole request. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  outboxSweepMs: number;
  tenantCacheTtlMs: number;
  /**
   * Users (with their role's permissions) and access tokens are cached per web process at most
   * this long; any change to them is announced by the database and forgets them at once (see
   * ChangeListener), so this is only a backstop. 0 turns the caches off.
   */
  identityCacheTtlMs: number;
  /** At most this many users and as many tokens cached per web process (least recently used out first). */
  identityCacheMax: number;
  seedDemo: boolean;
  /**
   * OAUTH_DEV_CALLBACK: the platform address serves `GET /oauth/dev-callback`, a page that shows an
   * authorization's code and the command to exchange it (a callback for trying the code flow by
   * hand). On by default outside production, off in production.
   */
  oauthDevCallback: boolean;
  /**
   * GRAPHIQL_SIGN_IN_TOKENS: GraphiQL on an instance's address offers the user signed in to its
   * Control Panel a token of their own in one click ("Use my sign-in", `POST /graphql/sign-in-token`).
   * On by default outside production; off in production, where turning it on also serves GraphiQL
   * on instances' addresses (it is not served there otherwise).
   */
  graphiqlSignInTokens: boolean;
  /** The legacy REST API answers (on) or, after its sunset, answers 410 Gone (off). */
  legacyRestApi: boolean;
  /** Keys that sign session cookies, newest first; outside production a random one per process when unset. */
  sessionKeys: string[];
  /**
   * Keys that sign portal tokens (`POST /portal/guest`), newest first (it signs; all verify):
   * PORTAL_TOKEN_SECRET's, else derived from SESSION_SECRET's, else (outside production) a fixed development key.
   */
  portalTokenKeys: string[];
  /** The bearer token a metrics scraper sends for `/metrics` (platform administrators may use their credentials). */
  metricsToken: string | undefined;
  /** Webhook deliveries (WEBHOOK_*): the sender's limits, the retry schedule, the disable rule. */
  webhooks: WebhookSettings;
  /** SMTP_URL: where notices are mailed (smtp:// or smtps://, credentials in the URL); unset: logged and shown in the Control Panel. */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the sender of notices. */
  mailFrom: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; throws {@link ConfigError} naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are treated as unset: `DATABASE_URL= npm start` means "no database URL".
  const cleaned = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const name = String(i.path[0] ?? 'environment');
      return `  ${name}: ${i.message} (got ${JSON.stringify(cleaned[name] ?? null)})`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    redisCluster: e.REDIS_CLUSTER === 'on',
    queueShards: e.QUEUE_SHARDS,
    baseDomain: e.BASE_DOMAIN.toLowerCase(),
    publicScheme: e.PUBLIC_SCHEME ?? (e.NODE_ENV === 'production' ? 'https' : 'http'),
    logLevel: e.LOG_LEVEL,
    dataDir: path.resolve(e.DATA_DIR),
    dbPoolMax: e.DB_POOL_MAX,
    dbConnectionMaxSchemas: e.DB_CONNECTION_MAX_SCHEMAS,
    dbConnectionMaxAgeMs: e.DB_CONNECTION_MAX_AGE === '0' ? 0 : e.DB_CONNECTION_MAX_AGE,
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerLockMs: e.WORKER_LOCK_MS,
    jobAttempts: e.JOB_ATTEMPTS,
    reconcileAfterMs: e.RECONCILE_AFTER_MS,
    applyBatchSize: e.APPLY_BATCH_SIZE,
    weblinkRateLimit: e.WEBLINK_RATE_LIMIT,
    admissionWritesPerSecond: e.ADMISSION_WRITES_PER_SECOND,
    admissionActiveWindowMs: e.ADMISSION_ACTIVE_WINDOW_MS,
    admissionMaxWaitMs: e.ADMISSION_MAX_WAIT_MS,
    statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
    weblinkStatementTimeoutMs: e.WEBLINK_STATEMENT_TIMEOUT_MS,
    proxyHops: e.PROXY_HOPS,
    queuePrefix: e.QUEUE_PREFIX,
    migrateConcurrency: e.MIGRATE_CONCURRENCY,
    passwordCheckConcurrency: e.PASSWORD_CHECK_CONCURRENCY,
    passwordCheckQueue: e.PASSWORD_CHECK_QUEUE,
    passwordFailuresPerAddress: e.PASSWORD_FAILURES_PER_ADDRESS,
    bodyLimit: e.BODY_LIMIT,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    // Within the drain allowance; and a request's time includes its headers' (Node refuses a
    // headers limit above the request's). Capped rather than refused: setting one alone is fine.
    shutdownIdleGraceMs: Math.min(e.SHUTDOWN_IDLE_GRACE_MS, e.SHUTDOWN_TIMEOUT_MS),
    headersTimeoutMs: Math.min(e.HEADERS_TIMEOUT_MS, e.REQUEST_TIMEOUT_MS),
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    outboxSweepMs: e.OUTBOX_SWEEP_MS,
    tenantCacheTtlMs: e.TENANT_CACHE_TTL_MS,
    identityCacheTtlMs: e.IDENTITY_CACHE_TTL_MS,
    identityCacheMax: e.IDENTITY_CACHE_MAX,
    // The demo tenant is for local use: never seeded into a production database by default.
    seedDemo: e.SEED_DEMO ?? e.NODE_ENV !== 'production',
    // A development aid: production has real callbacks, and a page of codes is no part of a product.
    oauthDevCallback: e.OAUTH_DEV_CALLBACK ?? e.NODE_ENV !== 'production',
    // A development aid too: in production, a page that turns a session into API tokens is the operator's choice.
    graphiqlSignInTokens: e.GRAPHIQL_SIGN_IN_TOKENS ?? e.NODE_ENV !== 'production',
    legacyRestApi: e.LEGACY_REST_API === 'on',
    metricsToken: e.METRICS_TOKEN,
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER,
      logDays: e.WEBHOOK_LOG_DAYS,
      // The embedded default runs on one machine, with receivers beside it: loopback allowed.
      allow: e.WEBHOOK_ALLOW ?? (e.DATABASE_URL ? '' : 'loopback'),
      concurrency: e.WEBHOOK_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
      secretOverlapMs: e.WEBHOOK_SECRET_OVERLAP,
    },
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `Lectern <no-reply@${e.BASE_DOMAIN.toLowerCase()}>`,
    portalTokenKeys: portalTokenKeys(e),
    sessionKeys: e.SESSION_SECRET ? e.SESSION_SECRET.split(',').map((k) => k.trim()) : [crypto.randomBytes(32).toString('base64url')],
  };
}

/** The platform's own public address (the OAuth authorization server), e.g. `http://localhost:3000`. */
export function platformBaseUrl(config: Config): string {
  return `${config.publicScheme}://${config.baseDomain}${publicPort(config)}`;
}

/** The public base address of a tenant, e.g. `http://acme.localhost:3000`. */
export function tenantBaseUrl(config: Config, slug: string): string {
  return `${config.publicScheme}://${slug}.${config.baseDomain}${publicPort(config)}`;
}

function publicPort(config: Config): string {
  const defaultPort = config.publicScheme === 'https' ? 443 : 80;
  // Behind a platform router the public port is the scheme's default; locally it is PORT.
  return config.env === 'production' || config.port === defaultPort ? '' : `:${config.port}`;
}
