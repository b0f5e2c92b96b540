import test from 'ava';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import { entryProblems, publicEntries } from '../../scripts/public-entries.js';

/**
 * The module borders `npm run lint` holds (`.dependency-cruiser.cjs`, `scripts/public-entries.ts`),
 * each shown failing on a small tree of modules written for the test, and holding on the real one.
 */
const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as {
  forbidden: unknown[];
  options: Record<string, unknown>;
};

/** The rule names depcruise reports for a tree of files (path -> text) laid out as the project is. */
async function violations(tree: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lectern-borders-'));
  try {
    for (const [file, text] of Object.entries(tree)) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const { tsConfig: _project, ...options } = config.options;
    return await cruiseViolations(dir, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The violations of the project's rules in the tree at `baseDir`. */
async function cruiseViolations(baseDir: string, options: Record<string, unknown>, cruised?: (count: number) => void): Promise<string[]> {
  const result = await cruise(
    ['src'],
    { ...options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } } as never,
    { extensions: ['.ts', '.js'] } as never,
  );
  const output = result.output as { summary: { totalCruised: number; violations: { rule: { name: string }; from: string; to: string }[] } };
  cruised?.(output.summary.totalCruised);
  return [...new Set(output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`))].sort();
}

const rules = (found: string[]) => [...new Set(found.map((v) => v.split(':')[0]))].sort();

test('when two modules import each other through their public entries (no circle of files), then lint fails on the module cycle', async (t) => {
  const found = await violations({
    'src/modules/alpha/index.ts': "export { alphaRule } from './alpha.rules.js';\n",
    'src/modules/alpha/alpha.rules.ts': 'export const alphaRule = 1;\n',
    'src/modules/alpha/alpha.service.ts': "import { betaRule } from '../beta/index.js';\nexport const a = betaRule;\n",
    'src/modules/beta/index.ts': "export { betaRule } from './beta.rules.js';\n",
    'src/modules/beta/beta.rules.ts': 'export const betaRule = 2;\n',
    'src/modules/beta/beta.service.ts': "import { alphaRule } from '../alpha/index.js';\nexport const b = alphaRule;\n",
  });
  t.deepEqual(rules(found), ['no-module-cycle'], found.join('\n'));
});

test("when a module imports another module's face, or any file but its public entries, then lint fails", async (t) => {
  const found = await violations({
    'src/modules/events/index.graphql.ts': "export { Event } from './events.graphql.js';\n",
    'src/modules/events/events.graphql.ts': 'export const Event = {};\nexport const eventsQuery = {};\n',
    'src/modules/events/events.data.ts': 'export const eventsByIds = 1;\n',
    'src/modules/delegates/delegates.graphql.ts':
      "import { eventsQuery } from '../events/events.graphql.js';\nimport { Event } from '../events/index.graphql.js';\nexport const d = [eventsQuery, Event];\n",
    'src/modules/delegates/delegates.service.ts':
      "import { eventsByIds } from '../events/events.data.js';\nexport const s = eventsByIds;\n",
  });
  t.deepEqual(found, [
    'modules-through-public-entry: src/modules/delegates/delegates.graphql.ts -> src/modules/events/events.graphql.ts',
    'modules-through-public-entry: src/modules/delegates/delegates.service.ts -> src/modules/events/events.data.ts',
  ]);
});

test("when a domain file imports another module's GraphQL entry, then lint fails (services know no face)", async (t) => {
  const found = await violations({
    'src/modules/events/index.graphql.ts': "export { Event } from './events.graphql.js';\n",
    'src/modules/events/events.graphql.ts': 'export const Event = {};\n',
    'src/modules/orders/orders.service.ts': "import { Event } from '../events/index.graphql.js';\nexport const o = Event;\n",
  });
  t.deepEqual(rules(found), ['domain-imports-no-face']);
});

test('when a public entry exports a root field, a mutation group, a REST resource or routes, or holds code, then lint fails', (t) => {
  const problems = entryProblems(
    'src/modules/events/index.graphql.ts',
    [
      "export { Event, eventById, pricesField } from './events.graphql.js';",
      "export { eventsQuery, EventMutations } from './events.graphql.js';",
      "export { eventsQuery as eventsList } from './events.graphql.js';",
      "export { publicEventsResource } from './public-events.rest.js';",
      "export * from './events.data.js';",
      "export { Contact } from '../crm/index.graphql.js';",
      'export const extra = 1;',
    ].join('\n'),
  );
  t.is(problems.length, 7, problems.join('\n'));
  for (const name of [
    'eventsQuery',
    'EventMutations',
    'eventsList',
    'publicEventsResource',
    "'export *'",
    "'../crm/index.graphql.js'",
    'holds code',
  ]) {
    t.true(
      problems.some((p) => p.includes(name)),
      name,
    );
  }
  t.deepEqual(
    entryProblems(
      'src/modules/events/index.graphql.ts',
      "export { Event, eventById, pricesField, type PriceArgs } from './events.graphql.js';",
    ),
    [],
  );
});

test('the real modules hold: no violation of any border rule, and every public entry only re-exports what others may use', async (t) => {
  const entries = publicEntries(path.join(root, 'src/modules'));
  t.true(entries.length >= 20, 'the scan finds the public entries');
  t.deepEqual(
    entries.flatMap((f) => entryProblems(path.relative(root, f), readFileSync(f, 'utf8'))),
    [],
  );
  let files = 0;
  t.deepEqual(
    await cruiseViolations(root, { ...config.options, tsConfig: { fileName: path.join(root, 'tsconfig.json') } }, (n) => (files = n)),
    [],
  );
  t.true(files > 250, `the cruise read the code (${files} files)`);
});
