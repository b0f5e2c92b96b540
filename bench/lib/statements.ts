import { createApp } from '../../src/app/web.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { startHttpServer, type RunningServer } from '../../src/kit/http/server.js';
import { loadConfig } from '../../src/platform/config.js';
import { freePort } from '../../src/platform/util/net.js';
import { requestJson } from './load.js';

type BenchRequest = Parameters<typeof requestJson>[1];

/**
 * Counts the SQL statements one request costs: a Lectern web app in this process (the same code
 * as the measured web process, from source) whose knex pool reports every statement it sends.
 * Each count is the least of a few tries after a warm-up, so a statement of a background timer
 * that happens to run alongside is not counted.
 */
export class StatementCounter {
  private constructor(
    private readonly rt: Runtime,
    private readonly server: RunningServer,
  ) {}

  static async start(databaseUrl: string, env: Record<string, string> = {}): Promise<StatementCounter> {
    const port = await freePort();
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      QUEUE_PREFIX: 'benchcount',
      ...env,
    });
    const rt = await createRuntime(config, 'bench-count');
    return new StatementCounter(rt, await startHttpServer(createApp(rt), port, '127.0.0.1'));
  }

  get port(): number {
    return this.server.port;
  }

  /** The statements of `request` (built for this app's port), and its answer. */
  async count(
    request: (port: number) => BenchRequest | Promise<BenchRequest>,
    tries = 3,
  ): Promise<{ statements: number; answer: { status: number; json: unknown } }> {
    const r = await request(this.port);
    const answer = await requestJson(this.port, r); // warms the caches (tenant, portal, locales)
    let least = Infinity;
    for (let i = 0; i < tries; i++) {
      let n = 0;
      const listen = () => void n++;
      this.rt.knex.on('query', listen);
      try {
        await requestJson(this.port, r);
      } finally {
        this.rt.knex.off('query', listen);
      }
      least = Math.min(least, n);
    }
    return { statements: least, answer };
  }

  async close(): Promise<void> {
    await this.server.close(1000);
    await this.rt.close();
  }
}
