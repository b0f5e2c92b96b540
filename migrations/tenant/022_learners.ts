import type { Knex } from 'knex';

/**
 * Learners (issue 25): a cancelled learner made active again (`learner { reactivate }`: its
 * `cancelled_date` cleared) attends again, so it is a Learner Created, as a new registration is.
 * Integrations that drop a learner on Learner Cancelled learn of its return the same way they
 * learned of it first. (017's triggers fire Learner Created when a row is named and Learner
 * Cancelled when its cancelled_date is set; nothing fired on the way back.)
 */
export const name = '022_learners';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(
    `create trigger webhook_learner_created_reactivated after update on "${schema}".delegates for each row
       when (old.cancelled_date is not null and new.cancelled_date is null and new.contact_id is not null)
       execute function "${schema}".capture_webhook_event('learner_created')`,
  );
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`drop trigger if exists webhook_learner_created_reactivated on "${schema}".delegates`);
}
