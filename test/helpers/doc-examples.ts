import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The example commands of the documentation, read as `test/docs/examples.test.ts` runs them.
 *
 * Every fenced ```sh block of README.md and docs/*.md is an example and is run, unless the line
 * before its fence is `<!-- not run: <why> -->` (a block that starts a server, opens a browser,
 * or needs production settings). In a block:
 * - a line `# => <text>` is (a line of) what the command before it prints, `...` standing for
 *   anything (ids, times, the rest of a long answer);
 * - any other `#` line is a comment;
 * - everything else is shell: a command ends at the end of a line, unless the line ends with `\`,
 *   `|`, `&&` or `||`, or leaves a quote open.
 * What would be silently skipped is refused instead: an answer line not written exactly `# =>`, a
 * shell block fenced as anything but `sh` (`bash`, `shell`, `console`), an indented fence, a heredoc.
 */
export interface DocStep {
  file: string;
  line: number;
  command: string;
  expected?: string;
}

export interface DocPage {
  file: string;
  steps: DocStep[];
  /** Fenced ```sh blocks marked `<!-- not run: ... -->`, with their reasons. */
  notRun: { line: number; reason: string }[];
}

export const NOT_RUN = /^<!-- not run: (.+) -->$/;

/** README.md first, then docs/ in the order of the README's reading list (alphabetical otherwise). */
export function docFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const rank = (f: string) => {
    const i = readme.indexOf(`(${f})`);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return ['README.md', ...docs.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))];
}

/** Whether `text` (lines of shell so far) leaves a quote open or ends with a line continuation. */
function continues(text: string): boolean {
  let single = false;
  let double = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (single) {
      if (c === "'") single = false;
    } else if (c === '\\') {
      i++;
    } else if (c === "'" && !double) {
      single = true;
    } else if (c === '"') {
      double = !double;
    } else if (c === '#' && !double && (i === 0 || /\s/.test(text[i - 1]!))) {
      // A comment: the rest of the line is not shell.
      while (i < text.length && text[i] !== '\n') i++;
    }
  }
  return single || double || /(\\|\||&&)\n?$/.test(text.trimEnd() + '\n');
}

export function parseDoc(file: string, text: string): DocPage {
  const lines = text.split('\n');
  const steps: DocStep[] = [];
  const notRun: DocPage['notRun'] = [];
  let inBlock = false;
  let run = false;
  let pending: { line: number; text: string } | undefined;
  let last: DocStep | undefined;
  const flush = () => {
    if (pending) throw new Error(`${file}:${pending.line}: the command is not complete at the end of its block (an open quote?)`);
  };
  lines.forEach((raw, i) => {
    const n = i + 1;
    if (/^\s+```/.test(raw)) throw new Error(`${file}:${n}: an indented fence: the docs test would not see its block`);
    const fence = /^```(\S*)/.exec(raw);
    if (fence && !inBlock && /^(bash|shell|console|zsh)$/.test(fence[1]!))
      throw new Error(`${file}:${n}: a shell block is fenced as \`\`\`sh (run) or marked not run, not \`\`\`${fence[1]}`);
    if (fence && !inBlock) {
      inBlock = true;
      const before = lines
        .slice(0, i)
        .reverse()
        .find((l) => l.trim() !== '');
      const skip = before && NOT_RUN.exec(before.trim());
      run = fence[1] === 'sh' && !skip;
      if (fence[1] === 'sh' && skip) notRun.push({ line: n, reason: skip[1]! });
      last = undefined;
      return;
    }
    if (fence && inBlock) {
      if (run) flush();
      inBlock = false;
      return;
    }
    if (!inBlock || !run) return;
    if (/^\s*#\s*=>/.test(raw) && !/^# => ?/.test(raw))
      throw new Error(`${file}:${n}: an answer line is written "# => ...", from the line's start`);
    if (/(^|[^<])<<-?\s*(['"]?)[A-Za-z_]\w*\2/.test(raw))
      throw new Error(`${file}:${n}: a heredoc: the docs test runs commands line by line`);
    if (pending) {
      pending.text += '\n' + raw;
      if (!continues(pending.text)) {
        last = { file, line: pending.line, command: pending.text };
        steps.push(last);
        pending = undefined;
      }
      return;
    }
    const answer = /^# => ?(.*)$/.exec(raw);
    if (answer) {
      if (!last) throw new Error(`${file}:${n}: "# =>" without a command before it`);
      last.expected = last.expected === undefined ? answer[1]! : `${last.expected}\n${answer[1]}`;
      return;
    }
    if (raw.trim() === '' || raw.startsWith('#')) {
      if (raw.startsWith('#')) last = undefined;
      return;
    }
    if (continues(raw)) {
      pending = { line: n, text: raw };
      return;
    }
    last = { file, line: n, command: raw };
    steps.push(last);
  });
  return { file, steps, notRun };
}

/** `expected` as a whole-text pattern: `...` stands for anything, the rest is literal. */
export function answerPattern(expected: string): RegExp {
  const parts = expected
    .trim()
    .split('...')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*?')}$`);
}

/**
 * What a terminal shows of a command, as the docs write it: npm's echo of the script it runs
 * (`> lectern@0.1.0 cli` / `> tsx ...`) is not the command's answer, and trailing spaces do not count.
 */
export function printed(output: string): string {
  return output
    .split('\n')
    .filter((l) => !/^> \S/.test(l))
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();
}
