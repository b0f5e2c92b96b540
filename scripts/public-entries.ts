import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * `npm run lint`: a module's public entries (`index.ts`, `index.graphql.ts`, `index.auth.ts`) give
 * other modules its types, read functions, services, rules and field builders, never its
 * behaviour in a face: a root query field, a mutation or mutation group, a REST resource or
 * route, a handler or a job processor. Those are wired by the app (`src/app/`), so no module's
 * face runs another's. Names say which is which (the project's naming: `eventsQuery`,
 * `EventMutations`, `courseTemplateMutations`, `publicEventsResource`, `legacyRestRoutes`,
 * `ordersProcessor`), and an entry holds re-exports only.
 */
export const BEHAVIOUR = /(Query|Mutations?|Resource|Routes?|Handler|Processor)$/;

/** What is wrong with one public entry's text: behaviour exported, or code that is not a re-export. */
export function entryProblems(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      const spec = (statement.moduleSpecifier as ts.StringLiteral).text;
      if (!spec.startsWith('./')) problems.push(`${file}: re-exports '${spec}', not a file of its own module`);
      if (!statement.exportClause) problems.push(`${file}: 'export *' from '${spec}' (name what others may use)`);
      else if (ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          // Both names: `export { eventsQuery as eventsList }` re-exports a root field all the same.
          const names = [element.propertyName?.text, element.name.text].filter((n): n is string => Boolean(n));
          if (names.some((n) => BEHAVIOUR.test(n)))
            problems.push(
              `${file}: exports ${element.name.text}, a face's behaviour (a root field, mutation, resource, route, handler or processor): wire it in src/app/`,
            );
        }
      }
      continue;
    }
    problems.push(
      `${file}: holds code (line ${source.getLineAndCharacterOfPosition(statement.getStart()).line + 1}); a public entry only re-exports`,
    );
  }
  return problems;
}

/** The public entries of the modules under `modulesDir`. */
export function publicEntries(modulesDir: string): string[] {
  return readdirSync(modulesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => ['index.ts', 'index.graphql.ts', 'index.auth.ts'].map((name) => path.join(modulesDir, d.name, name)))
    .filter((file) => existsSync(file));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(import.meta.dirname, '..');
  const problems = publicEntries(path.join(root, 'src/modules')).flatMap((file) =>
    entryProblems(path.relative(root, file), readFileSync(file, 'utf8')),
  );
  if (problems.length) {
    process.stderr.write(`Public entries of modules:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('public entries: re-exports only, no face behaviour\n');
}
