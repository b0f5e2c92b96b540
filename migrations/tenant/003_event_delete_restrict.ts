import type { Knex } from 'knex';

/**
 * An event that still has delegates cannot be deleted (409 `in_use`), as for contacts and
 * templates still in use: deleting it used to take its delegates and their scores with it.
 */
export const name = '003_event_delete_restrict';

async function setOnDelete(knex: Knex, schema: string, action: 'RESTRICT' | 'CASCADE'): Promise<void> {
  await knex.raw(
    `alter table ??.delegates drop constraint delegates_event_id_foreign,
       add constraint delegates_event_id_foreign foreign key (event_id) references ??.events (id) on delete ${action}`,
    [schema, schema],
  );
}

export const up = (knex: Knex, schema: string) => setOnDelete(knex, schema, 'RESTRICT');
export const down = (knex: Knex, schema: string) => setOnDelete(knex, schema, 'CASCADE');
