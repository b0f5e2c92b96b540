import DataLoader from 'dataloader';
import { GraphQLInt, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { extensionFields } from '../../kit/graphql/extensions.js';
import { refField } from '../../kit/graphql/permissions.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { contactsByIds, type ContactCard } from './crm.data.js';

/**
 * Contact in GraphQL, as far as orders need it: who placed an order, who an invoice is for.
 * Personal data: reading one needs CONTACT_VIEW, wherever it is reached from.
 */
const VIEW = 'CONTACT_VIEW';

/** A page's contacts in one statement, however many records name one. */
const contactById = (ctx: GraphQLContext, id: number) =>
  ctx
    .loader(
      'Contact.byId',
      (db) =>
        new DataLoader<number, ContactCard | undefined>(async (ids) => {
          const byId = new Map((await contactsByIds(db, ids)).map((c) => [c.id, c]));
          return ids.map((i) => byId.get(i));
        }),
    )
    .load(id);

export const ContactObject = new GraphQLObjectType<ContactCard, GraphQLContext>({
  name: 'Contact',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Contact'),
    firstName: { type: GraphQLString, resolve: (c) => c.first_name },
    lastName: { type: GraphQLString, resolve: (c) => c.last_name },
    email: { type: GraphQLString },
    organisation: { type: GraphQLString },
    companyLegacyId: { type: GraphQLInt, resolve: (c) => c.company_id, description: "The REST API id of the contact's company." },
    ...extensionFields('Contact'),
  }),
});

registerNode('Contact', { permission: VIEW, load: (ctx, id) => contactById(ctx, id) });

/** A field answering the contact with id `idOf(parent)`, refused without CONTACT_VIEW. */
export function contactField<P>(idOf: (parent: P) => number | null, description?: string): GraphQLFieldConfig<P, GraphQLContext> {
  return refField(ContactObject, VIEW, idOf, contactById, description);
}
