import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { buildSchema } from '../src/app/graphql-schema.js';
import { buildWebLinkSchema } from '../src/app/weblink-schema.js';

/**
 * `npm run schema`: writes the SDL of the Core GraphQL API to schema.graphql and of the WebLink
 * API to weblink.graphql (a test fails when either is stale).
 */
export const SCHEMA_FILES = {
  core: { file: path.resolve(import.meta.dirname, '../schema.graphql'), sdl: () => `${printSchema(buildSchema())}\n` },
  weblink: { file: path.resolve(import.meta.dirname, '../weblink.graphql'), sdl: () => `${printSchema(buildWebLinkSchema())}\n` },
};

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  for (const { file, sdl } of Object.values(SCHEMA_FILES)) {
    writeFileSync(file, sdl());
    process.stdout.write(`wrote ${file}\n`);
  }
}
