import { GraphQLInt, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { refField } from '../../kit/graphql/permissions.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';

/**
 * Contact in GraphQL, as far as orders need it: who placed an order, who an invoice is for.
 * Personal data: reading one needs CONTACT_VIEW, wherever it is reached from.
 */
const VIEW = 'CONTACT_VIEW';

interface ContactRow {
  id: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  organisation: string | null;
  company_id: number | null;
}

const contactById = (ctx: GraphQLContext, id: number) => ctx.loader('Contact.byId', (db) => byId<ContactRow & { [k: string]: unknown }>(db, 'contacts')).load(id);

export const Contact = new GraphQLObjectType<ContactRow, GraphQLContext>({
  name: 'Contact',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Contact'),
    firstName: { type: GraphQLString, resolve: (c) => c.first_name },
    lastName: { type: GraphQLString, resolve: (c) => c.last_name },
    email: { type: GraphQLString },
    organisation: { type: GraphQLString },
    companyLegacyId: { type: GraphQLInt, resolve: (c) => c.company_id, description: 'The REST API id of the contact\'s company.' },
  }),
});

registerNode('Contact', { permission: VIEW, load: (ctx, id) => contactById(ctx, id) });

/** A field answering the contact with id `idOf(parent)`, refused without CONTACT_VIEW. */
export function contactField<P>(idOf: (parent: P) => number | null, description?: string): GraphQLFieldConfig<P, GraphQLContext> {
  return refField(Contact, VIEW, idOf, contactById, description);
}

