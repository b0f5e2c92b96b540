import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiDocument } from '../src/kit/rest/openapi.js';
import { EXTRA_OPENAPI_PATHS, RESOURCES } from '../src/app/rest-routes.js';

/**
 * Lints the REST API's OpenAPI 3.1 document (the one served at /api/v2/openapi.json) against
 * the official OpenAPI schema, and checks that every operation is marked deprecated.
 */
const doc = openApiDocument(RESOURCES, EXTRA_OPENAPI_PATHS);
const validator = new Validator();
const result = await validator.validate(doc);
const problems: string[] = [];
if (!result.valid) problems.push(JSON.stringify(result.errors, null, 2));
if (validator.version !== '3.1') problems.push(`expected OpenAPI 3.1, got ${validator.version}`);
for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { deprecated?: boolean }>>)) {
  for (const [method, op] of Object.entries(item))
    if (!op.deprecated) problems.push(`${method.toUpperCase()} ${path} is not marked deprecated`);
}
if (problems.length) {
  process.stderr.write(`openapi: ${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(
  `openapi: /api/v2/openapi.json is valid OpenAPI ${validator.version} (${Object.keys(doc.paths as object).length} paths)\n`,
);
