import { LRUCache } from 'lru-cache';
import pg from 'pg';
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
 * others). Caches built on it serve a hit only while it is {@link live}, and only entries made in
 * the current {@link epoch}: when the connection drops, notifications may have been missed, so
 * everything cached before is forgotten (the epoch moves on) and nothing is served from cache
 * until it listens again (it reconnects every second).
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly handlers: ((payload: string) => void)[] = [];
  /** Moves on each time the connection is lost: entries of an earlier epoch are never served. */
  epoch = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly retryMs = 1000,
  ) {}

  /** Whether notifications are being received now: caches may serve hits only then. */
  get live(): boolean {
    return this.listening;
  }

  onChange(handler: (payload: string) => void): void {
    this.handlers.push(handler);
  }

  /** Starts listening; resolves once listening or after the first failed attempt (it keeps trying). */
  async start(): Promise<void> {
    this.stopped = false;
    this.started = true;
    await this.connect();
  }

  private started = false;

  /** Starts listening unless started already (or stopped): a process that never caches never connects. */
  ensureStarted(): void {
    if (!this.started && !this.stopped) void this.start();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.client) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'lectern-changes' });
    this.client = client;
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.listening = false;
      this.epoch++;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      if (err) this.log.warn({ err: { message: err.message } }, 'change listener lost its connection: caches off until it is back');
      this.retry = setTimeout(() => void this.connect(), this.retryMs);
      this.retry.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel !== CHANGES_CHANNEL) return;
      for (const h of this.handlers) h(n.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (this.client === client) {
        // Anything cached before this moment may have missed a change: start a new epoch.
        this.epoch++;
        this.listening = true;
      }
    } catch (err) {
      lost(err as Error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    this.epoch++;
    await client?.end().catch(() => undefined);
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

  /** `max` or `ttlMs` 0: no cache (every get loads). */
  constructor(
    private readonly listener: ChangeListener,
    opts: { max: number; ttlMs: number },
  ) {
    this.off = opts.max <= 0 || opts.ttlMs <= 0;
    this.entries = new LRUCache({ max: Math.max(1, opts.max), ttl: Math.max(1, opts.ttlMs) });
  }

  /** Forgets every entry of `group`, and any read of it now under way. */
  forget(group: string): void {
    this.generations.set(group, (this.generations.get(group) ?? 0) + 1);
  }

  /** The value of `key` in `group`: from the cache when it may be trusted, else from `load`. */
  async get(group: string, key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.off) return load();
    this.listener.ensureStarted();
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
