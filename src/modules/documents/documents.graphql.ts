import { GraphQLID, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { wholeConnection } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { hasPermission } from '../../platform/permissions.js';
import { documentsByIds, type DocumentRow } from './documents.data.js';

/**
 * Documents in Core GraphQL, as integrations read a course template's or learning path's
 * pictures (real-clients.md section 3): `image { id name description folder { id name } latest
 * { revisionNumber } }` and `imageGallery { edges { node { ... } } }`. A record has one image
 * (its `image_document_id`); its gallery is that image, so a website that shows the gallery
 * shows the same picture (an empty gallery when there is no image). Documents are read with the
 * record that shows them (its view permission); they are not reachable by `node(id:)`. The root
 * `downloadDocument(documentId:)` answers one document and the address to fetch it from (a
 * website copying a template's image), to a caller who may view course templates or learning
 * paths: the records documents are the pictures of.
 */

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

/** A document (an image): id `Document:<n>`. */
export const DocumentObject = new GraphQLObjectType<DocumentRow, GraphQLContext>({
  name: 'Document',
  description: 'A file, such as the image of a course template or learning path.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (d) => toGlobalId('Document', d.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (d) => d.id },
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString },
    folder: { type: FolderObject, resolve: (d) => (d.folder ? { name: d.folder } : null) },
    latest: { type: new GraphQLNonNull(DocumentRevisionObject), resolve: (d) => d },
    url: { type: new GraphQLNonNull(GraphQLString), description: 'The address it is served from (its latest revision).' },
  },
});

/** A record's documents (its gallery): all of them, on one page. */
const documents = wholeConnection<DocumentRow>('Document', DocumentObject);

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
    requirePermission(ctx, hasPermission(ctx.user.permissions, 'LEARNING_PATH_VIEW') ? 'LEARNING_PATH_VIEW' : 'COURSE_TEMPLATE_VIEW');
    return documentById(ctx, legacyIdOf('Document', documentId));
  },
};
