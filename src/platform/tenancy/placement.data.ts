import type { Knex } from '../db/knex.js';
import { AppError } from '../errors.js';
import { assertTenantSchema } from './slug.js';

/**
 * Where a tenant's schema lives when the database is a Citus 12.1+ cluster with schema-based
 * sharding (docs/scale.md, "Beyond one PostgreSQL"). Lectern keeps one DATABASE_URL, the coordinator;
 * Citus routes each statement to the node holding the schema named by the transaction's
 * search_path, so moving a tenant is a Citus operation and nothing in Lectern changes.
 */

export interface SchemaPlacement {
  schema: string;
  /** The node now holding the schema's tables. */
  node: string;
}

/** The Citus extension's version in this database, or undefined on plain PostgreSQL. */
export async function citusVersion(knex: Knex): Promise<string | undefined> {
  const row = await knex('pg_catalog.pg_extension').where({ extname: 'citus' }).first<{ extversion: string } | undefined>('extversion');
  return row?.extversion;
}

/**
 * Moves a tenant's schema (all its tables, one colocation group) to another node of the
 * cluster: distributes the schema first when it is still a plain one (a tenant made before the
 * database became a Citus cluster), then `citus_schema_move`, which copies with logical
 * replication and blocks writes only for the final switch.
 */
export async function moveTenantSchema(knex: Knex, schemaName: string, target: { host: string; port: number }): Promise<SchemaPlacement> {
  const schema = assertTenantSchema(schemaName);
  const version = await citusVersion(knex);
  if (!version) {
    throw new AppError(
      409,
      'not_citus',
      'This database is plain PostgreSQL (no citus extension): its tenants cannot be moved to another server. See docs/scale.md, "Beyond one PostgreSQL".',
    );
  }
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < 12 || (major === 12 && minor < 1)) {
    throw new AppError(409, 'citus_too_old', `Citus ${version} cannot move a schema (citus_schema_move needs 12.1 or later)`);
  }
  const node = await knex('pg_dist_node')
    .where({ nodename: target.host, nodeport: target.port, isactive: true, shouldhaveshards: true })
    .first('nodeid');
  if (!node)
    throw new AppError(
      409,
      'unknown_node',
      `${target.host}:${target.port} is not an active node of this cluster that may hold shards (citus_add_node it first)`,
    );
  const distributed = await knex('citus_schemas').whereRaw('schema_name = ?::regnamespace', [schema]).first();
  if (!distributed) await knex.raw('select citus_schema_distribute(?::regnamespace)', [schema]);
  await knex.raw('select citus_schema_move(?::regnamespace, ?, ?)', [schema, target.host, target.port]);
  return { schema, node: `${target.host}:${target.port}` };
}
