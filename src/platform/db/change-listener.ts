import { LRUCache } from 'lru-cache';
import crypto from 'node:crypto';
import pg from 'pg';
import type { Knex } from './knex.js';
import type { Logger } from '../logger.js';

/**
 * The channel on which the database announces changes that in-process caches must forget
 * (triggers in migrations send them, so every writer is covered: services, the CLI, SQL typed by
 * hand). Payloads: `users:<tenant schema>` (a user or role of that tenant changed),
 * `tokens` (an access token or an OAuth client was revoked, expired early or deleted).
 */
export const CHANGES_CHANNEL = 'lectern_changes';

/**
 * Listens for {@link CHANGES_CHANNEL} on a connection of its own (not a pooled one: a LISTEN
 * lasts as long as its session, and a pooler in transaction mode would hand the session to
 * others; its URL is DATABASE_DIRECT_URL when DATABASE_URL goes through one). Caches built on it
 * serve a hit only while it is {@link live}, and only entries made in the current {@link epoch}:
 * when the connection drops, notifications may have been missed, so everything cached before is
 * forgotten (the epoch moves on) and nothing is served from cache until it listens again (it
 * reconnects every second) and has heard itself once.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly handlers: ((payload: string) => void)[] = [];
  /** Drops since it last listened (0: live, or never dropped), and when the last one was logged. */
  private failures = 0;
  private loggedAt = 0;
  /** Moves on each time the connection is lost: entries of an earlier epoch are never served. */
  epoch = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly retryMs = 1000,
    private readonly heartbeatMs = 1000,
  ) {}

  /** Whether notifications are being received now: caches may serve hits only then. */
  get live(): boolean {
    return this.listening;
  }

  onChange(handler: (payload: string) => void): void {
    this.handlers.push(handler);
  }

  private started: Promise<void> | undefined;

  /**
   * Starts listening unless started already (or stopped): a process that never caches never
   * connects. Resolves when the first attempt is over (listening, or failed and retrying).
   */
  ensureStarted(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return (this.started ??= this.connect());
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.client) return;
    // keepAlive: a connection whose peer vanished is noticed by TCP too, not only by the heartbeat.
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'lectern-changes', keepAlive: true });
    this.client = client;
    client.on('error', (err) => this.drop(client, err));
    client.on('end', () => this.drop(client));
    client.on('notification', (n) => {
      if (n.channel !== CHANGES_CHANNEL) return;
      const payload = n.payload ?? '';
      const waiter = this.markers.get(payload);
      if (waiter) return waiter();
      for (const h of this.handlers) h(payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      // Caches go on only once a notification has come back: a connection that accepts LISTEN
      // but delivers nothing (a pooler in transaction mode) never turns them on.
      const heard = await this.echo((marker) => client.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, marker]), this.heartbeatMs);
      // Stopped (or given up) while connecting: this connection is nobody's.
      if (this.client !== client) {
        await client.end().catch(() => undefined);
        return;
      }
      if (!heard) return this.drop(client, this.silence());
      // Anything cached before this moment may have missed a change: start a new epoch.
      this.epoch++;
      this.listening = true;
      if (this.failures > 0) this.log.info({ after: this.failures }, 'change listener hears the database again: users and tokens are cached again');
      this.failures = 0;
      this.heartbeat ??= setInterval(() => this.beat(), this.heartbeatMs);
      this.heartbeat.unref();
    } catch (err) {
      this.drop(client, err as Error);
    }
  }

  private silence(): Error {
    return new Error(
      `no notification came back within ${this.heartbeatMs} ms: its connection delivers none ` +
        '(behind a pooler in transaction mode such as PgBouncer, LISTEN needs DATABASE_DIRECT_URL to reach PostgreSQL directly)',
    );
  }

  /** Gives up on `client` (lost, or silent): caches go off and a new connection is tried shortly. */
  private drop(client: pg.Client, err?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.epoch++;
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    if (this.stopped) return;
    if (err) this.logDrop(err);
    this.retry = setTimeout(() => void this.connect(), this.retryMs);
    this.retry.unref();
  }

  /**
   * A connection that keeps failing (PostgreSQL away, a pooler that swallows notifications) is
   * tried again every second: the first failure is logged at once, the next ones once a minute.
   */
  private logDrop(err: Error): void {
    this.failures++;
    const now = Date.now();
    if (this.failures > 1 && now - this.loggedAt < 60_000) return;
    this.loggedAt = now;
    this.log.warn(
      { err: { message: err.message }, failures: this.failures },
      'change listener is not hearing the database: users and tokens are not cached (every request reads them) until it does',
    );
  }

  private heartbeat: NodeJS.Timeout | undefined;

  /**
   * A connection can look alive and deliver nothing (a network path that went silent, a pooler
   * that hands the session to others): every `heartbeatMs` the listener notifies itself, and a
   * beat that has not come back by the next one drops the connection (caches off, reconnect).
   */
  private beat(): void {
    const client = this.client;
    if (!client || !this.listening) return;
    // A beat that fails to send is the connection's error, which drops it on its own.
    void this.echo((marker) => client.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, marker]), this.heartbeatMs).then(
      (heard) => heard || this.drop(client, this.silence()),
      () => undefined,
    );
  }

  private readonly markers = new Map<string, () => void>();

  /** Sends a marker of its own with `send` and waits for it to be heard: false when it is not within `timeoutMs`. */
  private async echo(send: (marker: string) => Promise<unknown>, timeoutMs: number): Promise<boolean> {
    const marker = `marker:${crypto.randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.markers.set(marker, () => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    try {
      // Heard, or not in time, whether or not the sending statement ever answers; its error is the caller's.
      const sent = send(marker);
      return await Promise.race([heard, sent.then(() => heard)]);
    } finally {
      clearTimeout(timer);
      this.markers.delete(marker);
    }
  }

  /**
   * Resolves once every change committed before the call has been handled here: it sends a
   * marker through the database and waits for it (PostgreSQL delivers notifications in commit
   * order). For a caller that has just changed a user and must not be answered from the cache
   * (and for tests). Returns at once when not listening (nothing is served from cache then); gives
   * up after `timeoutMs`.
   */
  async caughtUp(knex: Knex, timeoutMs = 5000): Promise<void> {
    if (this.listening) await this.echo((marker) => knex.raw('select pg_notify(?, ?)', [CHANGES_CHANNEL, marker]), timeoutMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    this.epoch++;
    // A connection still being made is ended by connect() when it is; never wait long on one.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([client?.end().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
  }
}

/**
 * A bounded in-process cache whose entries the database can take back promptly: entries belong
 * to a group (a tenant's schema, say) and {@link forget} drops a whole group at once (the
 * handler of a {@link ChangeListener} notification calls it). A hit is served only while the
 * listener is live and from its current epoch. A value read from the database is kept only when
 * no change of its group was announced, and the listener did not drop, while it was being read,
 * so a read that raced a change can never put the old value back. Entries also expire after
 * `ttlMs`, a backstop. Misses (undefined) are never kept.
 */
export class ListenedCache<V extends object> {
  private readonly entries: LRUCache<string, { value: V; epoch: number; generation: number }>;
  private readonly generations = new Map<string, number>();
  private readonly off: boolean;
  private readonly announced: ((group: string) => Promise<boolean>) | undefined;
  private readonly announcing = new Map<string, { yes: boolean; until: number }>();

  /**
   * `max` or `ttlMs` 0: no cache (every get loads). `announced`: whether changes of a group are
   * announced at all (a tenant whose migration that adds the triggers failed is not): a group
   * that is not is never cached. Asked once per group (again after 10 s while the answer is no).
   */
  constructor(
    private readonly listener: ChangeListener,
    opts: { max: number; ttlMs: number; announced?: (group: string) => Promise<boolean> },
  ) {
    this.announced = opts.announced;
    this.off = opts.max <= 0 || opts.ttlMs <= 0;
    this.entries = new LRUCache({ max: Math.max(1, opts.max), ttl: Math.max(1, opts.ttlMs) });
  }

  private async isAnnounced(group: string): Promise<boolean> {
    if (!this.announced) return true;
    const known = this.announcing.get(group);
    if (known && (known.yes || known.until > Date.now())) return known.yes;
    const yes = await this.announced(group);
    if (this.announcing.size >= 100_000) this.announcing.clear();
    this.announcing.set(group, { yes, until: Date.now() + 10_000 });
    return yes;
  }

  /** Forgets every entry of `group`, and any read of it now under way. */
  forget(group: string): void {
    this.generations.set(group, (this.generations.get(group) ?? 0) + 1);
  }

  /** The value of `key` in `group`: from the cache when it may be trusted, else from `load`. */
  async get(group: string, key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.off || !(await this.isAnnounced(group))) return load();
    void this.listener.ensureStarted();
    const id = `${group}\n${key}`;
    const epoch = this.listener.epoch;
    const generation = this.generations.get(group) ?? 0;
    if (this.listener.live) {
      const hit = this.entries.get(id);
      if (hit && hit.epoch === epoch && hit.generation === generation) return hit.value;
    }
    const value = await load();
    if (value !== undefined && this.listener.live && this.listener.epoch === epoch && (this.generations.get(group) ?? 0) === generation) {
      this.entries.set(id, { value, epoch, generation });
    }
    return value;
  }
}
