import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * A bench helper run as a process of its own (through tsx, like bench/lib/noop-worker.ts): its
 * input as JSON on stdin, its figures as the last JSON line on stdout.
 */
export function runScript<I, O>(script: string, input: I, what: string): Promise<O> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${what} exited with ${signal ?? `code ${code}`}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as O);
      } catch {
        reject(new Error(`${what} answered no figures: ${out.slice(0, 500)}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

/** When the module at `moduleUrl` is the script being run ({@link runScript}): reads its input, runs `run`, writes the figures and exits. */
export async function serveScript<I, O>(moduleUrl: string, run: (input: I) => Promise<O>): Promise<void> {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const result = await run(JSON.parse(Buffer.concat(chunks).toString('utf8')) as I);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}
