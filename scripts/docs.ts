import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run docs`: writes each docs/ page's table of contents (between `<!-- contents -->` and
 * `<!-- /contents -->`, after the page's title) from its `##` and `###` headings.
 * `test/docs/docs.test.ts` fails when one is stale, and checks every link of the docs.
 */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DOC_PAGES = (): string[] =>
  readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);

const START = '<!-- contents -->';
const END = '<!-- /contents -->';

/** Lines outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: string; n: number }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, i) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, n: i + 1 }];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(text: string): string[] {
  const seen = new Map<string, number>();
  return prose(text).flatMap(({ line }) => {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m) return [];
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return [count === 0 ? base : `${base}-${count}`];
  });
}

/** The page with its contents written from its headings. */
export function withContents(text: string): string {
  const headings = prose(text).flatMap(({ line }) => {
    const m = /^(#{2,3}) (.+)$/.exec(line);
    return m ? [{ depth: m[1]!.length, title: m[2]!.trim() }] : [];
  });
  const ids = anchors(text).slice(1); // the first anchor is the page's title
  const list = headings.map((h, i) => `${h.depth === 3 ? '  ' : ''}- [${h.title}](#${ids[i]})`);
  const block = [START, '**Contents**', '', ...list, END].join('\n');
  const lines = text.split('\n');
  const start = lines.indexOf(START);
  if (start >= 0) {
    const end = lines.indexOf(END, start);
    if (end < 0) throw new Error(`${START} without ${END}: put it back after the contents`);
    return [...lines.slice(0, start), block, ...lines.slice(end + 1)].join('\n');
  }
  // After the title and its blank line.
  const title = lines.findIndex((l) => l.startsWith('# '));
  return [
    ...lines.slice(0, title + 1),
    '',
    block,
    '',
    ...lines
      .slice(title + 1)
      .join('\n')
      .trimStart()
      .split('\n'),
  ].join('\n');
}

export interface LinkProblem {
  file: string;
  line: number;
  link: string;
  problem: string;
}

/** Every markdown link of a page to a file: it must name a file of the repository (and a heading of it). */
export function linkProblems(file: string, text: string, read: (f: string) => string | undefined): LinkProblem[] {
  const problems: LinkProblem[] = [];
  for (const { line, n } of prose(text)) {
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      // Web pages (a standard, an RFC) are fine; files are the repository's own.
      if (/^(https?:|mailto:)/.test(link)) continue;
      const [target, anchor] = link.split('#') as [string, string | undefined];
      const resolved = target ? path.posix.normalize(path.posix.join(path.posix.dirname(file), target)) : file;
      if (resolved.startsWith('..')) {
        problems.push({ file, line: n, link, problem: 'a link outside the repository' });
        continue;
      }
      const body = target ? read(resolved.replace(/\/$/, '')) : text;
      if (body === undefined) problems.push({ file, line: n, link, problem: `no file ${resolved}` });
      else if (anchor && resolved.endsWith('.md') && !anchors(body).includes(anchor))
        problems.push({ file, line: n, link, problem: `no heading #${anchor} in ${resolved}` });
    }
  }
  return problems;
}

export function readRepoFile(f: string): string | undefined {
  try {
    return readFileSync(path.join(ROOT, f), 'utf8');
  } catch (err) {
    // A folder is a valid target (examples/weblink/).
    return (err as NodeJS.ErrnoException).code === 'EISDIR' ? '' : undefined;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const f of DOC_PAGES()) {
    const file = path.join(ROOT, f);
    const before = readFileSync(file, 'utf8');
    const after = withContents(before);
    if (after !== before) {
      writeFileSync(file, after);
      process.stdout.write(`${f}: contents written\n`);
    }
  }
}
