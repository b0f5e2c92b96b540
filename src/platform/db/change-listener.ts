import { LRUCache } from 'lru-cache';
import crypto from 'node:crypto';
import pg from 'pg';
import type { Knex } from './knex.js';
import type { RequestCheck } from './transaction.js';
import type { Logger } from '../logger.js';

/**
 * The channel on which the database announces changes that in-process caches must forget
 * (triggers in migrations send them, so every writer is covered: services, the CLI, SQL typed by
 * hand). Payloads: `users:<tenant schema>` (a user or role of that tenant changed),
 * `tokens` (an access token or an OAuth client was revoked, expired early or deleted),
 * `tenant:<id>:<old slug>:<new slug>` (a tenant renamed, suspended or removed), `tenants:new` (a
 * tenant made), `tenants` (all of them: the table was truncated), `portals` (a portal added,
 * changed or removed), `outbox` (a transaction wrote outbox rows that only the relay enqueues:
 * webhook deliveries, written by triggers; the workers sweep at once).
 */
export const CHANGES_CHANNEL = 'lectern_changes';

/**
 * Listens for {@link CHANGES_CHANNEL} on a connection of its own (not a pooled one: a LISTEN
 * lasts as long as its session, and a pooler in transaction mode would hand the session to
 * others; its URL is DATABASE_DIRECT_URL when DATABASE_URL goes through one). A cache that relies
 * on it alone (tenant lookups) serves a hit only while it is {@link live}, and only entries made in
 * the current {@link epoch}: when the connection drops, notifications may have been missed, so
 * everything cached before is forgotten (the epoch moves on, and {@link onReset} handlers are
 * called) and nothing is served from such a cache until it listens again (it reconnects every
 * second) and has heard itself once. Users and tokens are checked against the database by each
 * request (ListenedCache), and do not depend on it.
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

  private readonly resets: (() => void)[] = [];

  /** `handler` runs whenever the epoch moves on (the connection dropped, or listens again): forget everything. */
  onReset(handler: () => void): void {
    this.resets.push(handler);
  }

  private newEpoch(): void {
    this.epoch++;
    for (const h of this.resets) h();
  }

  /** The PostgreSQL backend process of its connection, while it listens (`pg_stat_activity.pid`). */
  get pid(): number | undefined {
    return this.listening ? (this.client as { processID?: number } | undefined)?.processID : undefined;
  }

  /** Whether it was started (a process that serves requests): caches on it are gated by {@link live} only then. */
  get inUse(): boolean {
    return this.started !== undefined && !this.stopped;
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
      this.newEpoch();
      this.listening = true;
      if (this.failures > 0)
        this.log.info({ after: this.failures }, 'change listener hears the database again: users and tokens are cached again');
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
    this.newEpoch();
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

/** A value the cache hands out, with what a request needs to check it. */
export interface Found<V> {
  value: V;
  /** The access generation it was read at (undefined: not known). */
  generation: string | undefined;
  /** From the cache (a value read for this very request needs no check). */
  cached: boolean;
}

/** What a load read: the value (undefined: none), and the access generation it was read at when known. */
export interface Loaded<V> {
  value: V | undefined;
  generation?: string | null | undefined;
}

/**
 * A bounded in-process cache of users or access tokens (REST Basic auth, the Core API's bearer
 * check), exact for every request that checks what it takes from it (issue 23). Each entry keeps
 * the access generation of its tenant it was read at (platform migration 009: moved by every
 * change that can end a user or token, in the change's own transaction). A request that takes an
 * entry registers {@link check} on its database handle: its first statement reads the committed
 * generation in the same round trip, and only when that is not the entry's is the value read
 * again, on the request's connection, before any answer. So a change takes effect for every
 * request that starts after it commits, in every process, whether or not the process has heard of
 * it, and whether or not its listener is alive.
 *
 * The listener's notifications serve what the check does not (it is made only for requests let
 * in): {@link forget} drops a group (a tenant's users) when the database announces a change, so a
 * permission granted is seen by the next request of a process that has heard of it, milliseconds
 * after the commit; and everything is dropped when the listener's connection drops or comes back
 * (it may have missed announcements). Entries also expire after `ttlMs`, a backstop. Misses
 * (undefined) are never kept.
 */
export class ListenedCache<V extends object> {
  private readonly entries: LRUCache<string, { value: V; generation: string | undefined; version: number }>;
  /** Moves when a group is forgotten: entries of an earlier version of their group are not served. */
  private readonly versions = new Map<string, number>();
  private readonly off: boolean;
  private readonly announced: ((group: string) => Promise<boolean>) | undefined;
  private readonly announcing = new Map<string, { yes: boolean; until: number }>();

  /**
   * `max` or `ttlMs` 0: no cache (every get loads). `announced`: whether changes of a group move
   * its access generation at all (a tenant whose migration that adds the triggers failed does
   * not): a group that does not is never cached. Asked once per group (again after 10 s while the
   * answer is no).
   */
  constructor(
    private readonly listener: ChangeListener,
    opts: { max: number; ttlMs: number; announced?: (group: string) => Promise<boolean> },
  ) {
    this.announced = opts.announced;
    this.off = opts.max <= 0 || opts.ttlMs <= 0;
    this.entries = new LRUCache({ max: Math.max(1, opts.max), ttl: Math.max(1, opts.ttlMs) });
    listener.onReset(() => this.entries.clear());
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

  /** Forgets every entry of `group`. */
  forget(group: string): void {
    this.versions.set(group, (this.versions.get(group) ?? 0) + 1);
  }

  /**
   * The value of `key` in `group`: from the cache (`cached`: the request must {@link check} it),
   * else from `load` (read for this request: current enough for it, and kept for the next ones
   * with the generation it was read at).
   */
  async get(group: string, key: string, load: () => Promise<Loaded<V>>): Promise<Found<V> | undefined> {
    if (this.off || !(await this.isAnnounced(group))) {
      const loaded = await load();
      return loaded.value === undefined ? undefined : { value: loaded.value, generation: undefined, cached: false };
    }
    void this.listener.ensureStarted();
    const id = `${group}\n${key}`;
    const version = this.versions.get(group) ?? 0;
    const hit = this.entries.get(id);
    if (hit && hit.version === version) return { value: hit.value, generation: hit.generation, cached: true };
    const loaded = await load();
    if (loaded.value === undefined) return undefined;
    const generation = loaded.generation ?? undefined;
    // Kept under the group's version from before the read: a group forgotten meanwhile (the read
    // may have raced the change announced) never serves it.
    this.entries.set(id, { value: loaded.value, generation, version });
    return { value: loaded.value, generation, cached: false };
  }

  /** As {@link get}, but read anew whatever is cached (and cached as read). */
  async refresh(group: string, key: string, load: () => Promise<Loaded<V>>): Promise<Found<V> | undefined> {
    this.entries.delete(`${group}\n${key}`);
    return this.get(group, key, load);
  }

  /**
   * The check a request registers for what {@link get} gave it (checkRequest): nothing when it was
   * read for this request. When the committed generation is not the one the value was read at,
   * `reread` reads it again on the request's connection and `refusal` says whether the request may
   * go on (undefined) or is refused with the error returned; a value that still holds is kept with
   * the committed generation. `gone`: the refusal when the tenant is no longer active (else the
   * request's own).
   */
  check(
    group: string,
    key: string,
    found: Found<V>,
    reread: (db: Knex) => Promise<V | undefined>,
    refusal: (fresh: V | undefined) => Error | undefined,
    gone?: () => Error,
  ): RequestCheck | undefined {
    if (!found.cached) return undefined;
    return {
      generation: found.generation,
      recheck: async (committed, db) => {
        if (committed === null) {
          if (gone) throw gone();
          return;
        }
        const fresh = await reread(db);
        const refused = refusal(fresh);
        const id = `${group}\n${key}`;
        if (refused || !fresh) {
          this.entries.delete(id);
          if (refused) throw refused;
          return;
        }
        // Read after the committed generation was: current at it.
        if (!this.off) this.entries.set(id, { value: fresh, generation: committed, version: this.versions.get(group) ?? 0 });
      },
    };
  }
}
