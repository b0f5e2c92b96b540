import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The module table of docs/architecture.md ("Layers and modules") stays true: a row per module, and the tests it names exist. */
const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
const table = readme.slice(
  readme.indexOf('| module | what it owns | tests |'),
  readme.indexOf('\n\n', readme.indexOf('| module | what it owns | tests |')),
);
const rows = new Map(
  [...table.matchAll(/^\| `([a-z-]+)` \| [^|]+ \| ([^\n]+) \|$/gm)].map((m) => [
    m[1]!,
    [...m[2]!.matchAll(/`(test\/[^`]+)`/g)].map((t) => t[1]!),
  ]),
);

test('each module of src/modules has a row in the module table of docs/architecture.md, with at least one test file', (t) => {
  const modules = readdirSync(path.join(root, 'src/modules'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  t.true(modules.length > 20);
  t.deepEqual(
    modules.filter((m) => !rows.has(m)),
    [],
    'modules without a row',
  );
  t.deepEqual(
    [...rows.keys()].filter((m) => !modules.includes(m)),
    [],
    'rows without a module',
  );
  t.deepEqual(
    modules.filter((m) => !rows.get(m)?.length),
    [],
    'modules without a test named',
  );
});

test('every test file the module table of docs/architecture.md names exists', (t) => {
  const named = [...rows.values()].flat();
  t.true(named.length > 30);
  t.deepEqual(
    named.filter((f) => !existsSync(path.join(root, f))),
    [],
  );
});
