import { Model } from 'objection';

/**
 * The base of every table's Objection model. A model is declared in its module's data-access
 * file (`src/modules/<module>/<module>.data.ts`), the one file that names its table, with its
 * columns as typed properties (the names of the columns, as rows come back from PostgreSQL) and
 * relations where services join.
 *
 * Models are never bound to a knex instance: every query passes the transaction it runs in,
 * `Thing.query(db)`, as Objection's own examples do for transactions. The transaction carries the
 * tenant (its `search_path` is set by `withTenant`), so a model's unqualified `tableName` resolves
 * to the tenant's schema and a query made without a transaction has no pool to run on at all.
 */
export class BaseModel extends Model {
  /** Rows as PostgreSQL returns them: Objection adds no JSON-schema validation of its own (rules do that). */
  static override get modelPaths(): string[] {
    return [];
  }
}
