import {
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery, nestedList, wholeConnection } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { hasPermission } from '../../platform/permissions.js';
import { Document as DocumentModel, documentsByIds, type DocumentRow } from './documents.data.js';

/**
 * Documents in Core GraphQL, as integrations read a course template's or learning path's
 * pictures (real-clients.md section 3): `image { id name description folder { id name } latest
 * { revisionNumber } }` and `imageGallery { edges { node { ... } } }`. A record has one image
 * (its `image_document_id`); its gallery is that image, so a website that shows the gallery
 * shows the same picture (an empty gallery when there is no image). Documents are read with the
 * record that shows them (its view permission), and on their own, by a caller who may view course
 * templates or learning paths (the records documents are the pictures of): the root
 * `downloadDocument(documentId:)` answers one document and the address to fetch it from (a
 * website copying a template's image), `documents(filters)` lists them, each with the course
 * templates and learning paths that show it (the WordPress plugin's Document Updated webhook,
 * real-clients.md section 5.A), and `node(id:)` answers one.
 */

/** Reading documents on their own: either view permission will do (LEARNING_PATH_VIEW, else COURSE_TEMPLATE_VIEW is named). */
function requireDocumentView(ctx: GraphQLContext): void {
  requirePermission(ctx, hasPermission(ctx.user.permissions, 'LEARNING_PATH_VIEW') ? 'LEARNING_PATH_VIEW' : 'COURSE_TEMPLATE_VIEW');
}

/** A folder documents are kept in: its name is all there is of it (the id is `Folder:<name>` in base64). */
const FolderObject = new GraphQLObjectType<{ name: string }>({
  name: 'Folder',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (f) => Buffer.from(`Folder:${f.name}`, 'utf8').toString('base64') },
    name: { type: new GraphQLNonNull(GraphQLString) },
  },
});

/** The document's latest revision: its number and the address it is served from. */
const DocumentRevisionObject = new GraphQLObjectType<DocumentRow>({
  name: 'DocumentRevision',
  fields: {
    revisionNumber: { type: new GraphQLNonNull(GraphQLInt), resolve: (d) => d.revision_number },
    url: { type: new GraphQLNonNull(GraphQLString), description: 'The address of this revision.' },
  },
});

/**
 * Fields of Document that lists of other modules answer: the course templates and learning paths
 * that show it. Those modules are above this one (their records show documents), so this module
 * cannot import their lists without a circle: the app hands them to {@link documentsQuery}, which
 * adds these fields before the schema is built.
 */
let shownBy: GraphQLFieldConfigMap<DocumentRow, GraphQLContext> | undefined;

/** A document (an image): id `Document:<n>`. */
export const DocumentObject: GraphQLObjectType<DocumentRow, GraphQLContext> = new GraphQLObjectType<DocumentRow, GraphQLContext>({
  name: 'Document',
  description: 'A file, such as the image of a course template or learning path.',
  interfaces: [NodeInterface],
  fields: () => {
    if (!shownBy)
      throw new Error('Document: the lists of the records that show it are wired by the app (documentsQuery) before the schema is built');
    return {
      ...nodeFields('Document'),
      name: { type: new GraphQLNonNull(GraphQLString) },
      description: { type: GraphQLString },
      folder: { type: FolderObject, resolve: (d) => (d.folder ? { name: d.folder } : null) },
      latest: { type: new GraphQLNonNull(DocumentRevisionObject), resolve: (d) => d },
      url: { type: new GraphQLNonNull(GraphQLString), description: 'The address it is served from (its latest revision).' },
      ...shownBy,
    };
  },
});

/** The documents list: its filters, order and paging are every list's (api-conventions.md). */
const documentsList = listQuery<DocumentRow>({
  typeName: 'Document',
  table: DocumentModel.tableName,
  // Either of two view permissions: checked by documentsQuery, before the list reads anything.
  permission: null,
  node: () => DocumentObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Document', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    description: { column: 'description', kind: 'text' },
    folder: { column: 'folder', kind: 'text', orderable: true, description: 'The name of its folder.' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  },
});

/** A record's documents (its gallery): all of them, on one page, as a page of the documents list. */
const documents = wholeConnection<DocumentRow>(documentsList);

/** This request's document with this id (a page's documents in one statement). */
export const documentById = (ctx: GraphQLContext, id: number | null | undefined): Promise<DocumentRow | null> =>
  id == null
    ? Promise.resolve(null)
    : ctx
        .loader('Document.byId', (db) => byId((ids) => documentsByIds(db, ids)))
        .load(id)
        .then((d) => d ?? null);

/** `image`: the record's image, null when it has none. */
export function imageField<P>(getDocumentId: (parent: P) => number | null | undefined): GraphQLFieldConfig<P, GraphQLContext> {
  return {
    type: DocumentObject,
    description: 'Its image; null when it has none.',
    resolve: (p, _a, ctx) => documentById(ctx, getDocumentId(p)),
  };
}

/** `imageGallery`: the record's pictures. A record has one image today: the gallery is that image, or empty. */
export function imageGalleryField<P>(getDocumentId: (parent: P) => number | null | undefined): GraphQLFieldConfig<P, GraphQLContext> {
  return {
    type: new GraphQLNonNull(documents.type),
    description: 'Its pictures: its image (one record has one image), or none.',
    async resolve(p, _a, ctx) {
      const image = await documentById(ctx, getDocumentId(p));
      return documents.page(ctx, image ? [image] : []);
    },
  };
}

/** What `downloadDocument` answers: the address to fetch the document from, and the document. */
const DocumentDownloadObject = new GraphQLObjectType<DocumentRow, GraphQLContext>({
  name: 'DocumentDownload',
  fields: {
    url: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'The address to fetch it from (its latest revision).',
      resolve: (d) => d.url,
    },
    document: { type: new GraphQLNonNull(DocumentObject), resolve: (d) => d },
  },
});

/**
 * `downloadDocument(documentId:)`: a document of this instance and where to fetch it; null when
 * the id names none here (another type, garbage, or a document this instance does not have).
 * Documents are pictures of course templates and learning paths: COURSE_TEMPLATE_VIEW or
 * LEARNING_PATH_VIEW, checked before anything is read.
 */
export const downloadDocumentQuery: GraphQLFieldConfig<unknown, GraphQLContext, { documentId: string }> = {
  type: DocumentDownloadObject,
  description:
    'A document (such as the image of a course template or learning path) and the address to fetch it from; null when this instance has no such document. Needs COURSE_TEMPLATE_VIEW or LEARNING_PATH_VIEW.',
  args: { documentId: { type: new GraphQLNonNull(GraphQLID), description: 'A Document id.' } },
  async resolve(_root, { documentId }, ctx) {
    requireDocumentView(ctx);
    return documentById(ctx, legacyIdOf('Document', documentId));
  },
};

registerNode('Document', {
  // As downloadDocument and documents: a document is read as a course template's or a learning path's picture.
  permission: ['COURSE_TEMPLATE_VIEW', 'LEARNING_PATH_VIEW'],
  load: async (ctx, id) => (await documentById(ctx, id)) ?? undefined,
});

/** The lists of the records that show documents, as their modules make them (`courseTemplates`, `learningPaths`). */
export interface DocumentShownBy {
  courseTemplates: GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>>;
  learningPaths: GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>>;
}

/**
 * `documents(filters, order, first, offset)`: the documents of this instance, each with
 * `courseTemplates` and `learningPaths`, the records whose image it is (those lists, as their
 * modules have them, with their own view permissions: a page of documents reads each in one
 * statement). `lists` are the course templates' and learning paths' lists, given by the app.
 * Needs COURSE_TEMPLATE_VIEW or LEARNING_PATH_VIEW, checked before anything is read.
 */
export function documentsQuery(lists: DocumentShownBy): GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>> {
  shownBy ??= {
    courseTemplates: nestedList<DocumentRow>(lists.courseTemplates, {
      parentColumn: 'image_document_id',
      parentId: (d) => d.id,
      description:
        'The course templates whose image it is, with the filters, orders and pages of `courseTemplates` (COURSE_TEMPLATE_VIEW).',
    }),
    learningPaths: nestedList<DocumentRow>(lists.learningPaths, {
      parentColumn: 'image_document_id',
      parentId: (d) => d.id,
      description: 'The learning paths whose image it is, with the filters, orders and pages of `learningPaths` (LEARNING_PATH_VIEW).',
    }),
  };
  const resolve = documentsList.resolve!;
  return {
    ...documentsList,
    description: 'Documents (such as the images of course templates and learning paths). Needs COURSE_TEMPLATE_VIEW or LEARNING_PATH_VIEW.',
    resolve(root, args, ctx, info) {
      requireDocumentView(ctx);
      return resolve(root, args, ctx, info);
    },
  };
}
