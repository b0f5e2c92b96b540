import { Model } from 'objection';

/**
 * The base of every table's Objection model. A model is declared in its module's data-access
 * file (`src/modules/<module>/<module>.data.ts`), the one file that names its table, with its
 * columns as typed properties (the names of the columns, as rows come back from PostgreSQL) and
 * relations where services join.
 *
 * Models are never bound to a knex instance: every query runs on the transaction passed in, as
 * Objection's own examples do for transactions: `Thing.query(db)`, `Thing.relatedQuery('x', db)`,
 * or knex on the model's table, `db(Thing.tableName)`. The transaction carries the tenant (its
 * `search_path` is set by `withTenant`), so a model's unqualified `tableName` resolves to the
 * tenant's schema, and a query made without a transaction has no pool to run on at all.
 *
 * Which of the two: Objection where a query reads records by id or through a relation
 * (`joinRelated`, `relatedQuery`); knex on `tableName` on the paths measured by the benchmarks
 * (REST lists and records, GraphQL loaders, the order pipeline's steps), where rows go straight
 * into an answer and making model instances of them would be work for nothing, and for
 * statements Objection does not build (CTEs, `insert ... on conflict`, raw SQL).
 */
export class BaseModel extends Model {
  /** Rows as PostgreSQL returns them: Objection adds no JSON-schema validation of its own (rules do that). */
  static override get modelPaths(): string[] {
    return [];
  }
}
