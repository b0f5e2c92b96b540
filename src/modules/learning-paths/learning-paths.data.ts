import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/** Learning paths: the only file that names the `learning_paths` table. */

export class LearningPathRecord extends BaseModel {
  static override tableName = 'learning_paths';

  declare id: number;
  declare name: string;
  declare description: string | null;
  /** The primary locale: the language of its own name and description. */
  declare locale_id: number | null;
  declare created_on: string;
  declare updated_on: string;
}

export type LearningPathRow = ModelObject<LearningPathRecord>;

/** What a write sets of a learning path. */
export type LearningPathColumns = Partial<Pick<LearningPathRecord, 'name' | 'description' | 'locale_id'>>;

/** The learning path, read locked: a write checks it and changes it in the same transaction. */
export function lockLearningPath(db: Db, id: number): Promise<LearningPathRow | undefined> {
  return db(LearningPathRecord.tableName).where({ id }).forUpdate().first<LearningPathRow | undefined>();
}

export async function insertLearningPath(db: Db, columns: LearningPathColumns): Promise<LearningPathRow> {
  const [row] = await db(LearningPathRecord.tableName).insert(columns).returning('*');
  return row as LearningPathRow;
}

export async function updateLearningPath(db: Db, id: number, columns: LearningPathColumns): Promise<LearningPathRow> {
  const [row] = await db(LearningPathRecord.tableName)
    .where({ id })
    .update({ ...columns, updated_on: db.raw(`(now() at time zone 'utc')`) })
    .returning('*');
  return row as LearningPathRow;
}
