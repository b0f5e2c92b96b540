import DataLoader from 'dataloader';
import { GraphQLBoolean, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { extensionFields } from '../../kit/graphql/extensions.js';
import { refField } from '../../kit/graphql/permissions.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { accountField } from './accounts.graphql.js';
import { contactsByIds, type ContactCard } from './crm.data.js';

/**
 * Contact in GraphQL: who placed an order, who an invoice is for, a learner, an instructor (a
 * contact with `is_tutor`), a row of `contacts`. Personal data: reading one needs CONTACT_VIEW,
 * wherever it is reached from; its account needs COMPANY_VIEW as well.
 */
const VIEW = 'CONTACT_VIEW';

/** A page's contacts in one statement, however many records name one. */
const contacts = (ctx: GraphQLContext) =>
  ctx.loader(
    'Contact.byId',
    (db) =>
      new DataLoader<number, ContactCard | undefined>(async (ids) => {
        const byId = new Map((await contactsByIds(db, ids)).map((c) => [c.id, c]));
        return ids.map((i) => byId.get(i));
      }),
  );

const contactById = (ctx: GraphQLContext, id: number) => contacts(ctx).load(id);

/** Lets the loader keep the contacts a list read, so fields that name them read none again. */
export function primeContacts(ctx: GraphQLContext, rows: readonly ContactCard[]): void {
  const loader = contacts(ctx);
  for (const row of rows) loader.prime(row.id, row);
}

/** `personalName { firstName middleName lastName }`, as clients read a person's names. */
const PersonalNameObject = new GraphQLObjectType<ContactCard>({
  name: 'PersonalName',
  fields: {
    firstName: { type: GraphQLString, resolve: (c) => c.first_name },
    middleName: { type: GraphQLString, resolve: (c) => c.middle_name },
    lastName: { type: GraphQLString, resolve: (c) => c.last_name },
  },
});

export const ContactObject = new GraphQLObjectType<ContactCard, GraphQLContext>({
  name: 'Contact',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Contact'),
    firstName: { type: GraphQLString, resolve: (c) => c.first_name },
    lastName: { type: GraphQLString, resolve: (c) => c.last_name },
    personalName: { type: new GraphQLNonNull(PersonalNameObject), resolve: (c) => c },
    emailAddress: { type: GraphQLString, resolve: (c) => c.email },
    email: { type: GraphQLString, description: 'The same as emailAddress (the name orders read first).' },
    organisation: { type: GraphQLString },
    isInstructor: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Teaches (REST `is_tutor`).', resolve: (c) => c.is_tutor },
    isStaff: { type: new GraphQLNonNull(GraphQLBoolean), description: 'A member of staff (REST `is_staff`).', resolve: (c) => c.is_staff },
    isAdmin: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'Administers events (REST `is_admin` > 0).',
      resolve: (c) => c.is_admin > 0,
    },
    account: accountField<ContactCard>(
      (c) => c.company_id,
      'The account (company) the contact belongs to (COMPANY_VIEW): REST `company_id`.',
    ),
    companyLegacyId: { type: GraphQLInt, resolve: (c) => c.company_id, description: "The REST API id of the contact's company." },
    createdAt: { type: new GraphQLNonNull(GraphQLString), resolve: (c) => c.created_on },
    ...extensionFields('Contact'),
  }),
});

registerNode('Contact', { permission: VIEW, load: (ctx, id) => contactById(ctx, id) });

/** A field answering the contact with id `idOf(parent)`, refused without CONTACT_VIEW. */
export function contactField<P>(idOf: (parent: P) => number | null, description?: string): GraphQLFieldConfig<P, GraphQLContext> {
  return refField(ContactObject, VIEW, idOf, contactById, description);
}
