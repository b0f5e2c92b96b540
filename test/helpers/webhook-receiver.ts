import http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1 for tests: it records every POST (its path, headers, raw and
 * parsed body, `webhook-id`, when it came) and answers as told per path: a status and body (after
 * a delay), or never (the socket is held until the sender gives up). Unknown paths get 200 `[]`,
 * as the WordPress plugin's receiver answers.
 */
export interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- envelopes are asserted field by field
  body: any;
  webhookId: string;
  at: number;
  /** Whether it has been answered (false while a delayed or held answer is pending). */
  answered: boolean;
}

export type Answer = { status: number; body?: string | Buffer; delayMs?: number; contentType?: string } | 'hang';

export interface Receiver {
  port: number;
  hits: Hit[];
  url(path: string): string;
  at(path: string): Hit[];
  /** How a path is answered: an answer, or one chosen per request. */
  answers: Map<string, Answer | ((hit: Hit) => Answer)>;
  /** Sockets of requests held unanswered ('hang'), and the most held at once. */
  held: Set<net.Socket>;
  mostHeld(): number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  const answers: Receiver['answers'] = new Map();
  const held = new Set<net.Socket>();
  let most = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        // Recorded as it came: a test of what is sent reads `raw`.
      }
      const hit: Hit = {
        path,
        headers: req.headers,
        raw,
        body,
        webhookId: String(req.headers['webhook-id']),
        at: Date.now(),
        answered: false,
      };
      hits.push(hit);
      const given = answers.get(path);
      const how = (typeof given === 'function' ? given(hit) : given) ?? { status: 200, body: '[]' };
      if (how === 'hang') {
        held.add(req.socket);
        most = Math.max(most, held.size);
        req.socket.once('close', () => held.delete(req.socket));
        return;
      }
      setTimeout(() => {
        hit.answered = true;
        res.writeHead(how.status, { 'content-type': how.contentType ?? 'application/json' }).end(how.body ?? '{}');
      }, how.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    at: (path) => hits.filter((h) => h.path === path),
    answers,
    held,
    mostHeld: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
