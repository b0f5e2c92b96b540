import type { ModelObject } from 'objection';
import type { Db, Knex } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Categories, the topics of events (and of course templates): the only file that names the
 * `categories` table. Every function takes the transaction first.
 */

export class Category extends BaseModel {
  static override tableName = 'categories';

  declare id: number;
  declare name: string;
  /** Order among siblings; accepted by REST, never returned. */
  declare priority: number;
  declare introduction: string | null;
  /** Makes this a sub category of another. */
  declare parent_id: number | null;
  declare created_on: string;

  declare parent?: Category | null;
  declare children?: Category[];

  static override get relationMappings() {
    return {
      parent: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: Category,
        join: { from: 'categories.parent_id', to: 'categories.id' },
      },
      children: { relation: BaseModel.HasManyRelation, modelClass: Category, join: { from: 'categories.id', to: 'categories.parent_id' } },
    };
  }
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`category 7 does not exist`): all the access to the table it gives. */
export const CATEGORY_ROWS = { table: Category.tableName, label: 'category' } as const;

/**
 * Whether `categoryId` is `parentId` or one of its ancestors: then `parentId` is the category
 * itself or one of its descendants, and cannot become its parent.
 */
export async function isSelfOrAncestorOf(db: Db, categoryId: number, parentId: number): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { id: number }[] }>(
    `with recursive up(id, parent_id) as (
       select id, parent_id from categories where id = ?
       union all select c.id, c.parent_id from categories c join up on c.id = up.parent_id
     ) cycle id set is_cycle using path
     select id from up where id = ?`,
    [parentId, categoryId],
  );
  return rows.length > 0;
}

/**
 * A category's sub categories as its REST record embeds them (id, name, introduction, in their
 * order: priority, then id), as JSON built by PostgreSQL: a select expression correlated with the
 * `categories` row of the statement it is part of.
 */
export function subCategoriesJson(db: Db): Knex.Raw {
  return db.raw(
    `coalesce((select json_agg(json_build_object('id', s.id, 'name', s.name, 'introduction', s.introduction) order by s.priority, s.id) from ?? s where s.parent_id = ??), '[]'::json)`,
    [Category.tableName, `${Category.tableName}.id`],
  );
}

/**
 * The category a translation is written for, read with a key-share lock: a concurrent delete of
 * the category waits for the write (and then takes the translation with it).
 */
export async function lockCategory(db: Db, id: number): Promise<Pick<Category, 'id'> | undefined> {
  return Category.query(db).findById(id).select('id').forKeyShare();
}

/** A category as the public catalogue shows it. */
export type CategoryCard = Pick<Category, 'id' | 'name' | 'introduction' | 'parent_id'>;

/** The categories with these ids, whole rows (categories gone since are missing). */
export function categoriesByIds(db: Db, ids: readonly number[]): Promise<Category[]> {
  return db(Category.tableName).whereIn('id', ids as number[]);
}

/** The sub categories of these categories, whole rows, each parent's by name (as the public catalogue lists them). */
export async function subCategoriesByName(db: Db, parentIds: readonly number[]): Promise<Map<number, Category[]>> {
  const rows: Category[] = await db(Category.tableName)
    .whereIn('parent_id', parentIds as number[])
    .orderBy('name');
  const groups = new Map<number, Category[]>();
  for (const c of rows) {
    const list = groups.get(c.parent_id!);
    if (list) list.push(c);
    else groups.set(c.parent_id!, [c]);
  }
  return groups;
}

/** Inserts categories; returns their ids, in order. */
export function insertCategories(
  db: Db,
  rows: readonly (Partial<Omit<ModelObject<Category>, 'id'>> & Pick<Category, 'name' | 'priority'>)[],
): Promise<Pick<Category, 'id'>[]> {
  return db(Category.tableName).insert(rows).returning<Pick<Category, 'id'>[]>('id');
}
