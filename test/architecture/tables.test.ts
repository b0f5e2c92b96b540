import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Each table has one home: the data-access file of the module that owns it (`*.data.ts`), the
 * only file whose code names the table, in a query (`db('events')`, `Event.query(db)` through
 * `tableName = 'events'`, raw SQL `from events`) or in a face's configuration (`table: 'events'`).
 * Everything else reaches a table through that file's functions and models. Migrations create the
 * tables and are not counted; comments are not code and are not read.
 */
const root = path.resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const tables = new Set<string>();
for (const file of [...files(path.join(root, 'migrations/platform')), ...files(path.join(root, 'migrations/tenant'))]) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/createTable(?:IfNotExists)?\(\s*['"`]([a-z_]+)['"`]/g)) tables.add(m[1]!);
  // Tables made by a helper of the migration, `const translations = (table: string, ...) => s().createTable(table, ...)`,
  // are named by its calls: `await translations('course_template_translations', ...)`.
  for (const helper of text.matchAll(/const (\w+) = (?:async )?\(table: string[^)]*\)[^{]*=>\s*\{?\s*(?:await )?s\(\)\.createTable\(table/g)) {
    for (const m of text.matchAll(new RegExp(`\\b${helper[1]}\\(\\s*'([a-z_]+)'`, 'g'))) tables.add(m[1]!);
  }
}

/** Calls whose string argument is a table name: `db('x')`, `.from('x')`, `.join('x', ...)`... */
const TABLE_CALLS = new Set(['db', 'knex', 'trx', 'from', 'into', 'table', 'join', 'innerJoin', 'leftJoin', 'rightJoin', 'fullOuterJoin', 'hasTable', 'update', 'insert', 'delete']);
/** Properties whose string value is a table name: `{ table: 'x' }`, `static tableName = 'x'`. */
const TABLE_PROPERTIES = new Set(['table', 'tableName', 'from']);

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

function tablesNamedBy(node: ts.StringLiteralLike | ts.TemplateLiteralLikeNode, text: string): string[] {
  const named: string[] = [];
  // `platform.outbox`, and the tail `.oauth_tokens as t` of `${PLATFORM_SCHEMA}.oauth_tokens as t`: a schema-qualified name.
  const qualified = /^(?:[a-z_]+)?\.([a-z_]+)\b/.exec(text);
  if (qualified && tables.has(qualified[1]!) && !tables.has(text.split('.')[0]!)) named.push(qualified[1]!);
  const bare = text.split('.')[0]!.split(/\s+as\s+/i)[0]!.trim();
  const parent = node.parent;
  if (tables.has(bare)) {
    const asArgument = parent && ts.isCallExpression(parent) && parent.arguments.includes(node as ts.Expression) && TABLE_CALLS.has(calleeName(parent) ?? '');
    const asProperty =
      parent && (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.initializer === node && ts.isIdentifier(parent.name) && TABLE_PROPERTIES.has(parent.name.text);
    const asGetter = parent && ts.isReturnStatement(parent) && parent.parent?.parent && ts.isGetAccessor(parent.parent.parent) && ts.isIdentifier(parent.parent.parent.name) && parent.parent.parent.name.text === 'tableName';
    // `'events.id'` and `'events as e'` name the table wherever they appear.
    if (asArgument || asProperty || asGetter || text !== bare) named.push(bare);
  }
  for (const m of text.matchAll(/\b(?:from|join|into|update|table)\s+(?:only\s+)?(?:[a-z_]+\.)?"?([a-z_]+)"?/gi)) {
    if (tables.has(m[1]!)) named.push(m[1]!);
  }
  return named;
}

const owners = new Map<string, Set<string>>();
for (const file of [...files(path.join(root, 'src')), ...files(path.join(root, 'workers')), ...files(path.join(root, 'seeds'))]) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) text = node.text;
    if (text !== undefined) {
      for (const table of tablesNamedBy(node as ts.StringLiteralLike, text)) {
        const set = owners.get(table) ?? new Set<string>();
        set.add(path.relative(root, file));
        owners.set(table, set);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

test('the migrations create the tables this test knows about', (t) => {
  for (const table of ['events', 'course_templates', 'users', 'outbox', 'tenants', 'delegates', 'course_template_translations', 'event_field_values']) t.true(tables.has(table), table);
});

/**
 * Tables a data-access file names although another module owns them, from its `@uses` tags
 * (`@uses events, delegates: why`): a single statement that must span modules (a join in a read
 * model, one round trip for a step of the order pipeline). Everything else calls the owner's functions.
 */
function usesOf(file: string): Set<string> {
  const used = new Set<string>();
  for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/@uses ([a-z_]+(?:,\s*[a-z_]+)*)/g)) {
    for (const table of m[1]!.split(/,\s*/)) used.add(table);
  }
  return used;
}

/** The tables whose Objection model a file declares (`static override tableName = 'x'`). */
function modelsOf(file: string): Set<string> {
  // `'events'`, or a platform table qualified by its schema: `` `${PLATFORM_SCHEMA}.tenants` ``.
  return new Set([...readFileSync(path.join(root, file), 'utf8').matchAll(/static (?:override )?tableName = ['"`](?:\$\{PLATFORM_SCHEMA\}\.)?([a-z_]+)['"`]/g)].map((m) => m[1]!));
}

test('each table is named only in data-access files (*.data.ts), one of which owns it and declares its model', (t) => {
  const wrong: string[] = [];
  for (const table of [...tables].sort()) {
    const named = [...(owners.get(table) ?? [])].sort();
    if (named.length === 0) continue; // a table no code reads (yet)
    const outside = named.filter((f) => !f.endsWith('.data.ts'));
    if (outside.length) wrong.push(`${table}: named outside a data-access file in ${outside.join(', ')}`);
    const owning = named.filter((f) => f.endsWith('.data.ts') && !usesOf(f).has(table));
    if (owning.length !== 1) wrong.push(`${table}: ${owning.length} owners (${owning.join(', ') || 'none'}); others name it under @uses`);
    else if (!modelsOf(owning[0]!).has(table)) wrong.push(`${table}: its owner ${owning[0]} declares no model for it`);
  }
  t.deepEqual(wrong, [], `tables without one home:\n${wrong.join('\n')}`);
});

test('a data-access file lists under @uses only tables it names and does not own', (t) => {
  const stale: string[] = [];
  const dataFiles = new Set([...owners.values()].flatMap((s) => [...s]).filter((f) => f.endsWith('.data.ts')));
  for (const file of dataFiles) {
    for (const table of usesOf(file)) {
      if (!tables.has(table) || !owners.get(table)?.has(file) || modelsOf(file).has(table)) stale.push(`${file}: @uses ${table}`);
    }
  }
  t.deepEqual(stale, []);
});

test('the scan finds table names in code (it would see a stray query)', (t) => {
  // A query written anywhere names its table in one of the forms above; the scan must see them.
  const probe = ts.createSourceFile('probe.ts', "db('events').where({ id: 1 }); db.raw('select * from users');", ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node)) found.push(...tablesNamedBy(node, node.text));
    ts.forEachChild(node, visit);
  };
  visit(probe);
  t.deepEqual(found.sort(), ['events', 'users']);
});
