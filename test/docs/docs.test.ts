import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { DOC_PAGES, linkProblems, readRepoFile, ROOT, withContents } from '../../scripts/docs.js';
import { parseDoc } from '../helpers/doc-examples.js';

/**
 * The docs a newcomer reads (issue 26): a README read in five minutes that leads to docs/, a
 * table of contents on each page that matches its headings, and links that all lead somewhere
 * inside the repository.
 */
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

test('the README is under 300 lines and links every page of docs/', (t) => {
  const readme = read('README.md');
  t.true(readme.split('\n').length < 300, `${readme.split('\n').length} lines`);
  for (const page of DOC_PAGES()) t.true(readme.includes(`](${page})`), `README links ${page}`);
});

test("each docs page's contents are its headings (npm run docs writes them)", (t) => {
  for (const page of DOC_PAGES()) {
    const text = read(page);
    t.true(text.includes('<!-- contents -->'), `${page} has contents`);
    t.is(withContents(text), text, `${page}: run npm run docs`);
  }
});

test('every link of the README and the docs leads to a file (and heading) of the repository', (t) => {
  const problems = ['README.md', ...DOC_PAGES()].flatMap((f) => linkProblems(f, read(f), readRepoFile));
  t.deepEqual(
    problems.map((p) => `${p.file}:${p.line} ${p.link}: ${p.problem}`),
    [],
  );
});

test('the docs name no file outside the repository', (t) => {
  for (const f of ['README.md', ...DOC_PAGES()]) {
    const text = read(f);
    t.false(
      /\.\.\/shared|real-clients\.md|service-api\.md|api-conventions\.md|DESIGN\.md/.test(text),
      `${f} names a file outside the repository`,
    );
  }
});

test('the link check sees a broken link, a missing heading and a link outside the repository', (t) => {
  const problems = linkProblems(
    'docs/x.md',
    '[a](rest.md#no-such-heading) [b](nothing.md) [c](../../shared/spec/service-api.md) [d](https://example.com/) [e](#walk)\n\n## Walk',
    readRepoFile,
  );
  t.deepEqual(
    problems.map((p) => p.problem),
    ['no heading #no-such-heading in docs/rest.md', 'no file docs/nothing.md', 'a link outside the repository'],
  );
});

test('the example parser refuses what it would otherwise skip without a word, and joins a command continued by |, && or \\', (t) => {
  const block = (body: string, fence = 'sh') => `\`\`\`${fence}\n${body}\n\`\`\``;
  t.throws(() => parseDoc('x.md', block('echo hi\n  # => hi')), { message: /# =>/ });
  t.throws(() => parseDoc('x.md', block('echo hi\n#=> hi')), { message: /# =>/ });
  t.throws(() => parseDoc('x.md', block('echo hi', 'bash')), { message: /fenced/ });
  t.throws(() => parseDoc('x.md', `- a list\n  ${block('echo hi')}`), { message: /indented fence/ });
  t.throws(() => parseDoc('x.md', block("cat <<'JSON'\n{}\nJSON")), { message: /heredoc/ });
  const page = parseDoc('x.md', block('false &&\n  echo no\n# => \necho a |\n  tr a b\n# => b\ncurl -d \'{"a":\n1}\' x'));
  t.deepEqual(
    page.steps.map((s) => [s.command, s.expected]),
    [
      ['false &&\n  echo no', ''],
      ['echo a |\n  tr a b', 'b'],
      ['curl -d \'{"a":\n1}\' x', undefined],
    ],
  );
  t.deepEqual(parseDoc('x.md', `<!-- not run: a server -->\n${block('npm start')}`).notRun, [{ line: 2, reason: 'a server' }]);
});
