import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

/**
 * A closed-loop load generator: `concurrency` clients on keep-alive connections, each sending
 * the next request as soon as the previous answers, for `seconds`. `next(i)` chooses the
 * request (so requests can rotate across tenant hosts).
 */
export async function runLoad(opts: {
  port: number;
  concurrency: number;
  seconds: number;
  next: (i: number) => { method?: string; path: string; host: string; headers?: Record<string, string>; body?: string };
  expectStatus?: number;
  /** Receives every latency (ms), so several runs can be summarised together. */
  latencies?: number[];
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const deadline = Date.now() + opts.seconds * 1000;
  const started = process.hrtime.bigint();
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const r = opts.next(counter++);
      const t0 = process.hrtime.bigint();
      const req = http.request(
        { host: '127.0.0.1', port: opts.port, method: r.method ?? 'GET', path: r.path, agent, headers: { host: r.host, ...r.headers } },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
            if (res.statusCode !== (opts.expectStatus ?? 200)) errors++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      if (r.body) req.write(r.body);
      req.end();
    });
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (Date.now() < deadline) await one();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  opts.latencies?.push(...latencies);
  return summarise(latencies, errors, seconds);
}

/** Throughput and latency percentiles of a set of requests that took `seconds` of load in all. */
export function summarise(latencies: number[], errors: number, seconds: number): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return {
    requests: sorted.length,
    errors,
    seconds: round(seconds),
    rps: round(sorted.length / seconds),
    p50ms: round(pct(50)),
    p99ms: round(pct(99)),
  };
}

/** One request with an explicit Host header (fetch drops it); answers the status and parsed JSON body. */
export function requestJson(
  port: number,
  r: { method?: string; path: string; host: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; json: unknown; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: r.method ?? 'GET', path: r.path, headers: { host: r.host, ...r.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    if (r.body) req.write(r.body);
    req.end();
  });
}

export const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux). */
export async function cpuMs(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size of a process in MB, from /proc (Linux). */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return round(kb / 1024, 1);
}

/** What a floor of `npm run bench -- orders` measured: its timed orders, after a warm-up. */
export interface TimedOrders {
  orders: number;
  seconds: number;
  ordersPerSecond: number;
  /** One order's latency, p50 and p99. */
  p50ms: number;
  p99ms: number;
  /** CPU of the measuring process itself per timed order. */
  cpuMsPerOrder: number;
  concurrency: number;
  warmupOrders: number;
  /** Statements (round trips) per timed order, when the floor counts them. */
  statementsPerOrder?: number;
}

/**
 * Runs `one` over `bodies`, `concurrency` at a time, the first `warmup` untimed: each order's
 * latency, this process's CPU per order and, given `statements` (a running count), statements per order.
 */
export async function timeOrders(
  bodies: unknown[],
  opts: { warmup: number; concurrency: number },
  one: (body: unknown) => Promise<number>,
  statements?: () => number,
): Promise<TimedOrders> {
  const runAll = async (list: unknown[], latencies: number[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(opts.concurrency, list.length) }, async () => {
        while (next < list.length) latencies.push(await one(list[next++]));
      }),
    );
  };
  await runAll(bodies.slice(0, opts.warmup), []);
  const latencies: number[] = [];
  const before = statements?.() ?? 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await runAll(bodies.slice(opts.warmup), latencies);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const s = summarise(latencies, 0, seconds);
  const n = Math.max(1, latencies.length);
  return {
    orders: latencies.length,
    seconds: s.seconds,
    ordersPerSecond: s.rps,
    p50ms: s.p50ms,
    p99ms: s.p99ms,
    cpuMsPerOrder: round((cpu.user + cpu.system) / 1000 / n, 3),
    concurrency: opts.concurrency,
    warmupOrders: opts.warmup,
    ...(statements ? { statementsPerOrder: round((statements() - before) / n, 2) } : {}),
  };
}
