import type { Knex } from 'knex';

/** A migration that is told which schema it works in (tenant migrations run once per schema). */
export interface SchemaMigration {
  name: string;
  up(knex: Knex, schema: string): Promise<void>;
  down(knex: Knex, schema: string): Promise<void>;
}

/**
 * Knex migration source over an explicit, ordered list (so compiled and tsx runs load the same
 * migrations, with no directory scanning), binding each migration to one schema.
 */
export class SchemaMigrationSource implements Knex.MigrationSource<SchemaMigration> {
  constructor(
    private readonly migrations: readonly SchemaMigration[],
    private readonly schema: string,
  ) {}

  getMigrations(): Promise<SchemaMigration[]> {
    return Promise.resolve([...this.migrations]);
  }

  getMigrationName(m: SchemaMigration): string {
    return m.name;
  }

  getMigration(m: SchemaMigration): Promise<Knex.Migration> {
    return Promise.resolve({ up: (knex: Knex) => m.up(knex, this.schema), down: (knex: Knex) => m.down(knex, this.schema) });
  }
}
