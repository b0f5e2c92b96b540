import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The two paths through a module (docs/architecture.md, "The two paths through a module"):
 * - a write goes face -> one service function -> rules and data, so every face's write is checked
 *   by the same rules;
 * - a read goes face -> the owner's read functions (its own data files, or another module's
 *   `index.ts`), which only read.
 * Here the second is held to what makes the first true: no face calls a data function that
 * writes. A data function writes when its code has a write in it (a knex or Objection insert,
 * update, patch, delete, merge, increment, a row lock, or SQL that inserts, updates or deletes).
 */
const root = path.resolve(import.meta.dirname, '../..');
const FACE = /[.](rest|graphql|weblink|processor|routes|auth)[.]ts$|-auth[.]ts$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const WRITE_CALLS = new Set([
  'insert',
  'update',
  'patch',
  'patchAndFetchById',
  'updateAndFetchById',
  'delete',
  'del',
  'deleteById',
  'merge',
  'increment',
  'decrement',
  'insertGraph',
  'upsertGraph',
  'relate',
  'unrelate',
  'forUpdate',
  'forNoKeyUpdate',
  'truncate',
]);
const WRITE_SQL = /\b(insert\s+into|update\s+[a-z_."]+\s+set|delete\s+from|for\s+update|for\s+no\s+key\s+update)\b/i;

/** Whether `node` holds a write: a call of a writing method, or SQL text that writes. */
export function writes(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found) return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && WRITE_CALLS.has(n.expression.name.text)) found = true;
    else if (
      (ts.isStringLiteral(n) ||
        ts.isNoSubstitutionTemplateLiteral(n) ||
        ts.isTemplateHead(n) ||
        ts.isTemplateMiddle(n) ||
        ts.isTemplateTail(n)) &&
      WRITE_SQL.test(n.text)
    )
      found = true;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** The exported functions of a data file that write (`export function`, `export async function`, `export const f = (...) =>`). */
export function writingExports(source: ts.SourceFile): Set<string> {
  const exported = (n: ts.Node) => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  // Every top-level function of the file, exported or not: a helper that writes makes its callers write.
  const functions = new Map<string, { body: ts.Node; exported: boolean }>();
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name)
      functions.set(statement.name.text, { body: statement, exported: exported(statement) });
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) {
          functions.set(d.name.text, { body: d.initializer, exported: exported(statement) });
        }
      }
    }
  }
  const writing = new Set([...functions].filter(([, f]) => writes(f.body)).map(([name]) => name));
  const calls = (body: ts.Node, names: ReadonlySet<string>) => {
    let found = false;
    const visit = (n: ts.Node) => {
      if (found) return;
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && names.has(n.expression.text)) found = true;
      else ts.forEachChild(n, visit);
    };
    visit(body);
    return found;
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, f] of functions) {
      if (!writing.has(name) && calls(f.body, writing)) {
        writing.add(name);
        grew = true;
      }
    }
  }
  return new Set([...writing].filter((name) => functions.get(name)?.exported));
}

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const moduleFiles = files(path.join(root, 'src/modules'));

/** Every name a module file makes available, traced to the data file that declares it: a data file's own exports, and what an `index.ts` re-exports of them. */
const writers = new Map<string, Set<string>>(); // file -> writing names it exports
for (const file of moduleFiles.filter((f) => f.endsWith('.data.ts'))) writers.set(file, writingExports(parse(file)));
for (const file of moduleFiles.filter((f) => path.basename(f) === 'index.ts')) {
  const names = new Set<string>();
  for (const statement of parse(file).statements) {
    if (
      !ts.isExportDeclaration(statement) ||
      !statement.moduleSpecifier ||
      !statement.exportClause ||
      !ts.isNamedExports(statement.exportClause)
    )
      continue;
    const target = path.resolve(path.dirname(file), (statement.moduleSpecifier as ts.StringLiteral).text.replace(/[.]js$/, '.ts'));
    for (const e of statement.exportClause.elements) if (writers.get(target)?.has((e.propertyName ?? e.name).text)) names.add(e.name.text);
  }
  writers.set(file, names);
}

/** The writing data functions a face imports, as `face: name (from file)`. */
export function writesImportedBy(file: string, source: ts.SourceFile, writersByFile: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (
      !ts.isImportDeclaration(statement) ||
      !statement.importClause?.namedBindings ||
      !ts.isNamedImports(statement.importClause.namedBindings)
    )
      continue;
    const target = path.resolve(path.dirname(file), (statement.moduleSpecifier as ts.StringLiteral).text.replace(/[.]js$/, '.ts'));
    for (const e of statement.importClause.namedBindings.elements) {
      if (!e.isTypeOnly && writersByFile.get(target)?.has((e.propertyName ?? e.name).text))
        found.push(`${path.relative(root, file)}: ${(e.propertyName ?? e.name).text} (${path.relative(root, target)})`);
    }
  }
  return found;
}

test('the scan finds the data functions that write', (t) => {
  const all = [...writers.entries()].filter(([f]) => f.endsWith('.data.ts')).flatMap(([, names]) => [...names]);
  t.true(all.length > 30, `${all.length} writing functions found`);
  for (const name of ['insertEvent', 'updateEventRow', 'lockEvent', 'insertOpportunity', 'upsertTranslationRow'])
    t.true(all.includes(name), name);
  for (const name of ['eventsByIds', 'placesBooked', 'supportedLocales']) t.false(all.includes(name), name);
});

test('when a face imports a data function that writes (directly or through an index.ts), then this test fails', (t) => {
  const file = path.join(root, 'src/modules/crm/contacts.graphql.ts');
  const probe = ts.createSourceFile(
    file,
    "import { insertContacts, contactsByIds } from './crm.data.js';\nimport { insertEvent } from '../events/index.js';\n",
    ts.ScriptTarget.Latest,
    true,
  );
  const known = new Map([
    [path.join(root, 'src/modules/crm/crm.data.ts'), new Set(['insertContacts'])],
    [path.join(root, 'src/modules/events/index.ts'), new Set(['insertEvent'])],
  ]);
  t.deepEqual(writesImportedBy(file, probe, known), [
    'src/modules/crm/contacts.graphql.ts: insertContacts (src/modules/crm/crm.data.ts)',
    'src/modules/crm/contacts.graphql.ts: insertEvent (src/modules/events/index.ts)',
  ]);
});

test('no face writes except through a service: faces import only reading data functions', (t) => {
  const faces = moduleFiles.filter((f) => FACE.test(f));
  t.true(faces.length > 30);
  t.deepEqual(
    faces.flatMap((f) => writesImportedBy(f, parse(f), writers)),
    [],
  );
});
