import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Each table has one home: the data-access file of the module that owns it (`*.data.ts`), the
 * only file whose code names the table, in a query (`db('events')`, raw SQL `from events`) or in a
 * face's configuration (`table: 'events'`). The owner's model class stands for its table: inside
 * the owning module its faces may use it (a REST resource's `table: Delegate.tableName`, a list's
 * model), but another module that uses it (`Event.query(db).patch(...)`, `Event.tableName`) names
 * the table, exactly as `db('events')` would. Everything else reaches a table through the owner's
 * functions. Migrations create the tables and are not counted; comments are not code and are not read.
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
  for (const helper of text.matchAll(
    /const (\w+) = (?:async )?\(table: string[^)]*\)[^{]*=>\s*\{?\s*(?:await )?s\(\)\.createTable\(table/g,
  )) {
    for (const m of text.matchAll(new RegExp(`\\b${helper[1]}\\(\\s*'([a-z_]+)'`, 'g'))) tables.add(m[1]!);
  }
}

/** Calls whose string argument is a table name: `db('x')`, `.from('x')`, `.join('x', ...)`... */
const TABLE_CALLS = new Set([
  'db',
  'knex',
  'trx',
  'from',
  'into',
  'table',
  'join',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullOuterJoin',
  'hasTable',
  'update',
  'insert',
  'delete',
]);
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
  const bare = text
    .split('.')[0]!
    .split(/\s+as\s+/i)[0]!
    .trim();
  const parent = node.parent;
  if (tables.has(bare)) {
    const asArgument =
      parent &&
      ts.isCallExpression(parent) &&
      parent.arguments.includes(node as ts.Expression) &&
      TABLE_CALLS.has(calleeName(parent) ?? '');
    const asProperty =
      parent &&
      (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
      parent.initializer === node &&
      ts.isIdentifier(parent.name) &&
      TABLE_PROPERTIES.has(parent.name.text);
    const asGetter =
      parent &&
      ts.isReturnStatement(parent) &&
      parent.parent?.parent &&
      ts.isGetAccessor(parent.parent.parent) &&
      ts.isIdentifier(parent.parent.parent.name) &&
      parent.parent.parent.name.text === 'tableName';
    // `'events.id'` and `'events as e'` name the table wherever they appear.
    if (asArgument || asProperty || asGetter || text !== bare) named.push(bare);
  }
  for (const m of text.matchAll(/\b(?:from|join|into|update|table)\s+(?:only\s+)?(?:[a-z_]+\.)?"?([a-z_]+)"?/gi)) {
    if (tables.has(m[1]!)) named.push(m[1]!);
  }
  return named;
}

/** Faces, as `.dependency-cruiser.cjs` names them. */
const FACE = /[.](rest|graphql|weblink|processor|routes|auth)[.]ts$|-auth[.]ts$/;

/** The module a file belongs to (`src/modules/<module>/...`), or the file itself outside modules. */
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? file;

const codeFiles = [...files(path.join(root, 'src')), ...files(path.join(root, 'workers')), ...files(path.join(root, 'seeds'))].map((f) =>
  path.relative(root, f),
);
const sources = new Map(
  codeFiles.map((file) => [file, ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true)]),
);

/** Model classes by name: the table each stands for and the data file that declares it (`class Event ... { static tableName = 'events' }`). */
function modelClassesIn(source: ts.SourceFile): Map<string, string> {
  const found = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || !statement.name) continue;
    for (const member of statement.members) {
      if (!ts.isPropertyDeclaration(member) || !ts.isIdentifier(member.name) || member.name.text !== 'tableName' || !member.initializer)
        continue;
      const init = member.initializer;
      const text =
        ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)
          ? init.text
          : ts.isTemplateExpression(init)
            ? init.templateSpans.at(-1)!.literal.text
            : '';
      const table = /^\.?([a-z_]+)$/.exec(text)?.[1];
      if (table) found.set(statement.name.text, table);
    }
  }
  return found;
}
const models = new Map<string, { table: string; file: string }>();
for (const [file, source] of sources) for (const [name, table] of modelClassesIn(source)) models.set(name, { table, file });

/**
 * The tables a file names through another module's model classes: every use (a query, `.tableName`,
 * a relation's `modelClass`) of a class it imports from another module, under whatever local name.
 */
function tablesNamedThroughModels(
  file: string,
  source: ts.SourceFile,
  modelsByName: ReadonlyMap<string, { table: string; file: string }>,
  rowsByName: ReadonlyMap<string, { table: string; file: string }> = new Map(),
): string[] {
  const local = new Map<string, string>(); // a model class, under its local name
  const rows = new Map<string, string>(); // a published reference (EVENT_ROWS), under its local name
  const namespaces = new Set<string>(); // `import * as events from '../events/index.js'`
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause?.namedBindings) continue;
    // A face exports GraphQL types, some named as a model is (`Event`): only domain files export models.
    if (FACE.test((statement.moduleSpecifier as ts.StringLiteral).text.replace(/[.]js$/, '.ts'))) continue;
    if (statement.importClause.isTypeOnly) continue; // a row type reads nothing
    const bindings = statement.importClause.namedBindings;
    if (ts.isNamespaceImport(bindings)) {
      namespaces.add(bindings.name.text);
      continue;
    }
    for (const element of bindings.elements) {
      if (element.isTypeOnly) continue;
      const imported = (element.propertyName ?? element.name).text;
      const model = modelsByName.get(imported);
      if (model && moduleOf(model.file) !== moduleOf(file)) local.set(element.name.text, model.table);
      const ref = rowsByName.get(imported);
      if (ref && moduleOf(ref.file) !== moduleOf(file)) rows.set(element.name.text, ref.table);
    }
  }
  const named = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && local.has(node.text) && !ts.isImportSpecifier(node.parent)) named.add(local.get(node.text)!);
    // `EVENT_ROWS.table` is the table's name in hand: a query on it names the table (the reference
    // itself, given to the REST engine's `references`, does not).
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      rows.has(node.expression.text) &&
      node.name.text === 'table'
    ) {
      named.add(rows.get(node.expression.text)!);
    }
    // `events.Event.query(db)` through a namespace import of another module.
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text)) {
      const model = modelsByName.get(node.name.text);
      if (model && moduleOf(model.file) !== moduleOf(file)) named.add(model.table);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...named];
}

/** The references owners publish for foreign keys (`export const EVENT_ROWS = { table: Event.tableName, ... }`), by name. */
const rowReferences = new Map<string, { table: string; file: string }>();
for (const [file, source] of sources) {
  for (const m of source.text.matchAll(/export const ([A-Z_]+_ROWS) = \{ table: (\w+)\.tableName/g)) {
    const model = models.get(m[2]!);
    if (model) rowReferences.set(m[1]!, { table: model.table, file });
  }
}

const owners = new Map<string, Set<string>>();
const name = (table: string, file: string) => {
  const set = owners.get(table) ?? new Set<string>();
  set.add(file);
  owners.set(table, set);
};
for (const [file, source] of sources) {
  const visit = (node: ts.Node) => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) text = node.text;
    if (text !== undefined) for (const table of tablesNamedBy(node as ts.StringLiteralLike, text)) name(table, file);
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const table of tablesNamedThroughModels(file, source, models, rowReferences)) name(table, file);
}

test('the migrations create the tables this test knows about', (t) => {
  for (const table of [
    'events',
    'course_templates',
    'users',
    'outbox',
    'tenants',
    'delegates',
    'course_template_translations',
    'event_field_values',
  ])
    t.true(tables.has(table), table);
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
  return new Set(
    [
      ...readFileSync(path.join(root, file), 'utf8').matchAll(
        /static (?:override )?tableName = ['"`](?:\$\{PLATFORM_SCHEMA\}\.)?([a-z_]+)['"`]/g,
      ),
    ].map((m) => m[1]!),
  );
}

test("each table is named only in data-access files (*.data.ts) of the module whose model declares it, or under another module's @uses", (t) => {
  const wrong: string[] = [];
  const declaring = new Map<string, string[]>();
  for (const file of codeFiles.filter((f) => f.endsWith('.data.ts')))
    for (const table of modelsOf(file)) declaring.set(table, [...(declaring.get(table) ?? []), file]);
  for (const table of [...tables].sort()) {
    const named = [...(owners.get(table) ?? [])].sort();
    if (named.length === 0) continue; // a table no code reads (yet)
    const outside = named.filter((f) => !f.endsWith('.data.ts'));
    if (outside.length) wrong.push(`${table}: named outside a data-access file in ${outside.join(', ')}`);
    const models = declaring.get(table) ?? [];
    if (models.length !== 1) {
      wrong.push(`${table}: ${models.length} data files declare its model (${models.join(', ') || 'none'})`);
      continue;
    }
    const owner = moduleOf(models[0]!);
    const strangers = named.filter((f) => f.endsWith('.data.ts') && moduleOf(f) !== owner && !usesOf(f).has(table));
    if (strangers.length) wrong.push(`${table}: owned by ${owner}, named by ${strangers.join(', ')} without @uses`);
  }
  t.deepEqual(wrong, [], `tables without one home:\n${wrong.join('\n')}`);
});

test('a data-access file lists under @uses only tables it names that another module owns', (t) => {
  const stale: string[] = [];
  const dataFiles = new Set([...owners.values()].flatMap((s) => [...s]).filter((f) => f.endsWith('.data.ts')));
  const ownerOf = new Map<string, string>();
  for (const file of codeFiles.filter((f) => f.endsWith('.data.ts')))
    for (const table of modelsOf(file)) ownerOf.set(table, moduleOf(file));
  for (const file of dataFiles) {
    for (const table of usesOf(file)) {
      if (!tables.has(table) || !owners.get(table)?.has(file) || ownerOf.get(table) === moduleOf(file))
        stale.push(`${file}: @uses ${table}`);
    }
  }
  t.deepEqual(stale, []);
});

test('the scan finds table names in code (it would see a stray query)', (t) => {
  // A query written anywhere names its table in one of the forms above; the scan must see them.
  const probe = ts.createSourceFile(
    'probe.ts',
    "db('events').where({ id: 1 }); db.raw('select * from users');",
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node)) found.push(...tablesNamedBy(node, node.text));
    ts.forEachChild(node, visit);
  };
  visit(probe);
  t.deepEqual(found.sort(), ['events', 'users']);
});

test("using another module's model class names its table, whatever it is called locally (it would see Event.query(db).patch in crm.data.ts)", (t) => {
  const probe = ts.createSourceFile(
    'src/modules/crm/crm.data.ts',
    "import { Event as E, eventsByIds } from '../events/index.js';\nimport { Event } from '../events/index.graphql.js';\nimport { Contact } from './contacts.data.js';\nimport * as courses from '../course-templates/index.js';\nimport { TAX_TYPE_ROWS, COMPANY_ROWS } from '../tax-types/index.js';\nexport const a = (db) => courses.CourseTemplate.query(db).delete();\nexport const b = (db) => db(TAX_TYPE_ROWS.table).update({ rate: 0 });\nexport const c = { references: COMPANY_ROWS };\nexport const close = (db) => E.query(db).patch({ is_cancelled: true });\nexport const contacts = (db) => Contact.query(db);",
    ts.ScriptTarget.Latest,
    true,
  );
  const known = new Map([
    ['Event', { table: 'events', file: 'src/modules/events/events.data.ts' }],
    ['Contact', { table: 'contacts', file: 'src/modules/crm/crm.data.ts' }],
    ['CourseTemplate', { table: 'course_templates', file: 'src/modules/course-templates/course-templates.data.ts' }],
  ]);
  const rows = new Map([
    ['TAX_TYPE_ROWS', { table: 'tax_types', file: 'src/modules/tax-types/tax-types.data.ts' }],
    ['COMPANY_ROWS', { table: 'companies', file: 'src/modules/crm/crm.data.ts' }],
  ]);
  // The module's own model is its own business; another module's, under an alias or through a
  // namespace, names its table, and so does a query on a published reference's `.table`
  // (handing the reference to the REST engine does not).
  t.deepEqual(tablesNamedThroughModels('src/modules/crm/crm.data.ts', probe, known, rows).sort(), [
    'course_templates',
    'events',
    'tax_types',
  ]);
  t.is(models.get('Event')?.table, 'events', 'the scan finds the model classes of the code');
  t.is(rowReferences.get('EVENT_ROWS')?.table, 'events', 'and the references their owners publish');
});
