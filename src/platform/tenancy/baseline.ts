import { includes, sql } from '../../../migrations/tenant/baseline.generated.js';
import type { SchemaMigration } from '../db/migration-source.js';
import { assertTenantSchema } from './slug.js';

/** Stands for the tenant schema's name in the baseline's SQL. */
export const BASELINE_PLACEHOLDER = '__tenant_schema__';

export interface Baseline {
  /** The migrations the baseline stands for: the first of the list, in order. */
  names: string[];
  /** Its SQL for `schema`, statements separated by semicolons (one simple-protocol query). */
  sql: string;
}

/**
 * Why a baseline: a new tenant used to replay every tenant migration, and some of them add
 * columns with a default to tables made by earlier ones. PostgreSQL checks such an ALTER TABLE
 * against every composite type use in the database by reading all of pg_depend (about 150 ms at
 * 8,000 tenant schemas, where pg_depend holds ten million rows), so provisioning grew with the
 * number of tenants (1.1 s a tenant at 8,000). Made from the baseline, a schema gets its tables
 * at their final shape at once; test/tenancy/baseline.test.ts checks it is the same schema, rows
 * included, as the replay makes.
 *
 * The baseline is used only when it stands for a prefix of `migrations`; the rest run as usual.
 */
export function baselineFor(schema: string, migrations: readonly SchemaMigration[]): Baseline | undefined {
  if (!includes.length || includes.length > migrations.length) return undefined;
  if (!includes.every((name, i) => migrations[i]!.name === name)) return undefined;
  return { names: [...includes], sql: sql.replaceAll(BASELINE_PLACEHOLDER, assertTenantSchema(schema)) };
}
