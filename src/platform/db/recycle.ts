/**
 * Bounds what a pooled connection's PostgreSQL backend holds. A backend keeps catalog entries
 * (relation, attribute and plan caches) for every schema it has run a statement in and never
 * gives them back: a connection that has served thousands of tenants' schemas held 118 MB at
 * 10,000 tenants (`npm run bench -- tenancy`). A connection that has served more than
 * `DB_CONNECTION_MAX_SCHEMAS` distinct schemas is closed the next time the pool would hand it out,
 * and a new one takes its place (`DB_CONNECTION_MAX_AGE` bounds its age the same way, through
 * knex's own lifetime limit). The pool only checks a connection when handing it out, so none is
 * ever closed during a statement or a transaction.
 */

/** Each pool's limit, by its client's config (the object every lease of the pool shares). */
const limits = new WeakMap<object, number>();
/** The distinct schemas each connection has served, while it counts toward a limit. */
const served = new WeakMap<object, Set<string>>();

/** Sets the limit of distinct schemas per connection of the pool whose client config is `config` (0: none). */
export function limitSchemasPerConnection(config: object, maxSchemas: number): void {
  if (maxSchemas > 0) limits.set(config, maxSchemas);
}

/** Notes that `conn`, a connection of the pool whose client config is `config`, serves `schema`. */
export function noteSchema(config: object, conn: object, schema: string): void {
  if (!limits.has(config)) return;
  let schemas = served.get(conn);
  if (!schemas) served.set(conn, (schemas = new Set()));
  schemas.add(schema);
}

/** Whether `conn` may still be handed out: it has served at most its pool's limit of distinct schemas. */
export function withinSchemaLimit(config: object, conn: object): boolean {
  const max = limits.get(config);
  return max === undefined || (served.get(conn)?.size ?? 0) <= max;
}

/** The distinct schemas `conn` has served (while its pool has a limit). */
export function schemasServed(conn: object): number {
  return served.get(conn)?.size ?? 0;
}
