import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that counts round trips: every message a client sends that
 * PostgreSQL answers with ReadyForQuery (a simple-protocol Query, or the Sync that ends an
 * extended-protocol batch) is one, recorded with the SQL text it carried (a Sync takes the texts
 * of the Parse messages since the previous Sync, joined with `; `). Connections are told apart by the application_name of their startup
 * message, so a test can count one runtime's pool and ignore other processes. SSL is refused (the
 * client then speaks plain), as on the test servers.
 */
export interface RoundTrip {
  application: string;
  sql: string;
}

export interface PgProxyOptions {
  /**
   * Passes everything but notifications (NotificationResponse) to the client: a LISTEN is
   * accepted and nothing is ever heard, as behind a pooler in transaction mode.
   */
  dropNotifications?: boolean;
}

export class PgProxy {
  readonly trips: RoundTrip[] = [];
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly links: { application: () => string; freeze(): void }[] = [];

  private constructor(
    private readonly upstream: URL,
    private readonly opts: PgProxyOptions,
  ) {}

  /** Starts a proxy to `databaseUrl`'s server; `url` is the same database through the proxy. */
  static async start(databaseUrl: string, opts: PgProxyOptions = {}): Promise<PgProxy & { url: string }> {
    const proxy = new PgProxy(new URL(databaseUrl), opts);
    const port = await proxy.listen();
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return Object.assign(proxy, { url: url.toString() });
  }

  private listen(): Promise<number> {
    this.server = net.createServer((client) => this.pipe(client));
    return new Promise((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve((this.server!.address() as net.AddressInfo).port)));
  }

  private pipe(client: net.Socket): void {
    const server = net.connect(Number(this.upstream.port || 5432), this.upstream.hostname);
    this.sockets.add(client).add(server);
    let frozen = false;
    if (this.opts.dropNotifications) {
      // The proxy answers SSLRequest itself, so all the server sends is typed messages.
      let fromServer = Buffer.alloc(0);
      server.on('data', (chunk: Buffer) => {
        if (frozen) return;
        fromServer = Buffer.concat([fromServer, chunk]);
        while (fromServer.length >= 5) {
          const length = fromServer.readInt32BE(1) + 1;
          if (fromServer.length < length) break;
          if (fromServer[0] !== 0x41 /* 'A' */) client.write(fromServer.subarray(0, length));
          fromServer = fromServer.subarray(length);
        }
      });
    } else {
      server.pipe(client);
    }
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    client.on('error', () => server.destroy());
    server.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    let started = false;
    let application = '';
    this.links.push({
      application: () => application,
      freeze() {
        // The connection stays open and carries nothing either way, as a network path gone silent.
        frozen = true;
        server.unpipe(client);
      },
    });
    let parses: string[] = [];
    client.on('data', (chunk: Buffer) => {
      if (frozen) return;
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) return;
          const code = buffered.readInt32BE(4);
          if (code === 80877103) {
            // SSLRequest: answer "no", and the client goes on in plain text.
            buffered = buffered.subarray(length);
            client.write('N');
            continue;
          }
          const params = buffered.subarray(8, length).toString('utf8').split('\0');
          for (let i = 0; i + 1 < params.length; i += 2) if (params[i] === 'application_name') application = params[i + 1]!;
          server.write(buffered.subarray(0, length));
          buffered = buffered.subarray(length);
          started = true;
          continue;
        }
        if (buffered.length < 5) return;
        const length = buffered.readInt32BE(1) + 1;
        if (buffered.length < length) return;
        const type = String.fromCharCode(buffered[0]!);
        const body = buffered.subarray(5, length);
        if (type === 'Q') this.trips.push({ application, sql: body.toString('utf8').replace(/\0$/, '') });
        else if (type === 'P') parses.push(body.subarray(body.indexOf(0) + 1, body.indexOf(0, body.indexOf(0) + 1)).toString('utf8'));
        else if (type === 'S') {
          this.trips.push({ application, sql: parses.join('; ') });
          parses = [];
        }
        server.write(buffered.subarray(0, length));
        buffered = buffered.subarray(length);
      }
    });
  }

  /** Makes every open connection named `application` go silent (open, but nothing passes). */
  freeze(application: string): number {
    const links = this.links.filter((l) => l.application() === application);
    for (const l of links) l.freeze();
    return links.length;
  }

  /** The round trips of connections named `application` while `fn` runs. */
  async count(application: string, fn: () => Promise<unknown>): Promise<RoundTrip[]> {
    const from = this.trips.length;
    await fn();
    return this.trips.slice(from).filter((t) => t.application === application);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
