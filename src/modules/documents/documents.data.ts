import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Documents (for now: images that course templates and learning paths show): the only file that
 * names the `documents` table. A document is a name, an optional description and folder, the
 * address it is served from, and its latest revision number.
 */
export class Document extends BaseModel {
  static override tableName = 'documents';

  declare id: number;
  declare name: string;
  declare description: string | null;
  declare folder: string | null;
  declare url: string;
  declare revision_number: number;
  declare created_on: string;
}

export type DocumentRow = ModelObject<Document>;

/** Documents by id (a page's batch). */
export function documentsByIds(db: Db, ids: readonly number[]): Promise<DocumentRow[]> {
  return db(Document.tableName).whereIn('id', ids as number[]);
}

export async function insertDocument(
  db: Db,
  row: Pick<DocumentRow, 'name' | 'url'> & Partial<Pick<DocumentRow, 'description' | 'folder'>>,
): Promise<DocumentRow> {
  return Document.query(db).insert(row).returning('*') as unknown as Promise<DocumentRow>;
}

/** Every document's address, for a seed that moves its own documents (seeds/demo.ts). */
export function documentUrls(db: Db): Promise<Pick<DocumentRow, 'id' | 'url' | 'folder'>[]> {
  return db(Document.tableName).select('id', 'url', 'folder').orderBy('id');
}

/** Points a document at another address. */
export async function setDocumentUrl(db: Db, id: number, url: string): Promise<void> {
  await db(Document.tableName).where({ id }).update({ url });
}
