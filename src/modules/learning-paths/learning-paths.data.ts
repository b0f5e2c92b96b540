import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';

/** Learning paths: the only file that names the `learning_paths` table. */

export class LearningPath extends BaseModel {
  static override tableName = 'learning_paths';

  declare id: number;
  declare name: string;
  declare description: string | null;
  /** The primary locale: the language of its own name and description. */
  declare locale_id: number | null;
  declare code: string | null;
  /** draft, active or retired (a check in the table holds it to these); websites list `active` ones. */
  declare lifecycle_state: string;
  /** Sold as one (a bundle of its objectives) rather than as a path through them. */
  declare is_bundle: boolean;
  declare category_id: number | null;
  /** Its image (a document). */
  declare image_document_id: number | null;
  declare created_on: string;
  declare updated_on: string;

  declare objectives?: LearningPathObjective[];

  static override get relationMappings() {
    return {
      objectives: {
        relation: BaseModel.HasManyRelation,
        modelClass: LearningPathObjective,
        join: { from: 'learning_paths.id', to: 'learning_path_objectives.learning_path_id' },
      },
    };
  }
}

/** One step of a learning path, in order: a course template (any of its events) or one event. */
export class LearningPathObjective extends BaseModel {
  static override tableName = 'learning_path_objectives';

  declare id: number;
  declare learning_path_id: number;
  declare position: number;
  declare course_template_id: number | null;
  declare event_id: number | null;
  declare created_on: string;
}

export type LearningPathObjectiveRow = ModelObject<LearningPathObjective>;

/** The objectives of these learning paths, each path's in order (a page's batch). */
export function objectivesOf(db: Db, pathIds: readonly number[]): Promise<LearningPathObjectiveRow[]> {
  return db(LearningPathObjective.tableName)
    .whereIn('learning_path_id', pathIds as number[])
    .orderBy(['learning_path_id', 'position', 'id']);
}

/** Appends objectives to a path, after its last one. */
export async function appendObjectives(
  db: Db,
  pathId: number,
  targets: ({ course_template_id: number } | { event_id: number })[],
): Promise<void> {
  if (!targets.length) return;
  const last = await LearningPathObjective.query(db)
    .where({ learning_path_id: pathId })
    .max('position as p')
    .first()
    .castTo<{ p: number | null } | undefined>();
  const start = (last?.p ?? 0) + 1;
  await db(LearningPathObjective.tableName).insert(targets.map((t, i) => ({ learning_path_id: pathId, position: start + i, ...t })));
}

/** Replaces a path's objectives with these, in this order (positions 1, 2, ...). */
export async function replaceObjectives(
  db: Db,
  pathId: number,
  targets: ({ course_template_id: number } | { event_id: number })[],
): Promise<void> {
  await db(LearningPathObjective.tableName).where({ learning_path_id: pathId }).delete();
  if (targets.length)
    await db(LearningPathObjective.tableName).insert(targets.map((t, i) => ({ learning_path_id: pathId, position: i + 1, ...t })));
}

export type LearningPathRow = ModelObject<LearningPath>;

/** What a write sets of a learning path. */
export type LearningPathColumns = Partial<
  Pick<LearningPath, 'name' | 'description' | 'locale_id' | 'code' | 'lifecycle_state' | 'is_bundle' | 'category_id' | 'image_document_id'>
>;

/** The learning path, read locked: a write checks it and changes it in the same transaction. */
export async function lockLearningPath(db: Db, id: number): Promise<LearningPathRow | undefined> {
  return LearningPath.query(db).findById(id).forUpdate();
}

export async function insertLearningPath(db: Db, columns: LearningPathColumns): Promise<LearningPathRow> {
  const [row] = await db(LearningPath.tableName).insert(columns).returning('*');
  return row as LearningPathRow;
}

export async function updateLearningPath(db: Db, id: number, columns: LearningPathColumns): Promise<LearningPathRow> {
  const [row] = await db(LearningPath.tableName)
    .where({ id })
    .update({ ...columns, updated_on: utcNow(db) })
    .returning('*');
  return row as LearningPathRow;
}

/** Learning paths by id (a page's batch). */
export function learningPathsByIds(db: Db, ids: readonly number[]): Promise<LearningPathRow[]> {
  return db(LearningPath.tableName).whereIn('id', ids as number[]);
}
