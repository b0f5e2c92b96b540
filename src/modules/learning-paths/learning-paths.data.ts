import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
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
export async function lockLearningPath(db: Db, id: number): Promise<LearningPathRow | undefined> {
  return LearningPathRecord.query(db).findById(id).forUpdate();
}

export async function insertLearningPath(db: Db, columns: LearningPathColumns): Promise<LearningPathRow> {
  const [row] = await db(LearningPathRecord.tableName).insert(columns).returning('*');
  return row as LearningPathRow;
}

export async function updateLearningPath(db: Db, id: number, columns: LearningPathColumns): Promise<LearningPathRow> {
  const [row] = await db(LearningPathRecord.tableName)
    .where({ id })
    .update({ ...columns, updated_on: utcNow(db) })
    .returning('*');
  return row as LearningPathRow;
}

/** Learning paths by id (a page's batch). */
export function learningPathsByIds(db: Db, ids: readonly number[]): Promise<LearningPathRow[]> {
  return db(LearningPathRecord.tableName).whereIn('id', ids as number[]);
}
