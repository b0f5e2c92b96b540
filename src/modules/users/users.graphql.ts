import { GraphQLBoolean, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { contactField } from '../crm/index.graphql.js';
import { contactNames } from '../crm/index.js';
import { activeUserCards, User, userCardsByIds, type UserCard } from './users.data.js';

/**
 * `users { edges { node { id fullName contact { id } } } }` (USER_VIEW): the instance's active
 * users, whom work can be assigned to (a task's `userId` is a `User` id, `User:<n>`). A user's
 * full name is their contact's first and last name; a user without a contact, or whose contact
 * has no name, is called by the part of their e-mail address before the @.
 */
const VIEW = 'USER_VIEW';

const userById = (ctx: GraphQLContext, id: number) => ctx.loader('User.byId', (db) => byId((ids) => userCardsByIds(db, ids))).load(id);

const nameOfContact = (ctx: GraphQLContext, id: number) =>
  ctx.loader('User.contactNames', (db) => byId((ids) => contactNames(db, ids))).load(id);

/** The user's name: their contact's names, else the local part of their e-mail address. */
async function fullName(ctx: GraphQLContext, u: UserCard): Promise<string> {
  const contact = u.contact_id === null ? undefined : await nameOfContact(ctx, u.contact_id);
  const name = [contact?.first_name, contact?.last_name]
    .map((n) => n?.trim())
    .filter((n) => n)
    .join(' ');
  const at = u.email.lastIndexOf('@');
  return name || (at > 0 ? u.email.slice(0, at) : u.email);
}

export const UserObject = new GraphQLObjectType<UserCard, GraphQLContext>({
  name: 'User',
  description: 'Someone who signs in to the instance (or an integration acting as them).',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('User'),
    fullName: {
      type: new GraphQLNonNull(GraphQLString),
      description: "Their contact's first and last name; without one, their e-mail address before the @.",
      resolve: (u, _a, ctx) => fullName(ctx, u),
    },
    emailAddress: { type: new GraphQLNonNull(GraphQLString), resolve: (u) => u.email },
    isActive: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (u) => u.is_active },
    contact: contactField<UserCard>((u) => u.contact_id, 'The contact record of the person (CONTACT_VIEW); null when none.'),
  }),
});

registerNode('User', { permission: VIEW, load: (ctx, id) => userById(ctx, id) });

export const usersQuery = listQuery<UserCard>({
  typeName: 'User',
  table: User.tableName,
  from: activeUserCards,
  permission: VIEW,
  node: () => UserObject,
  description: 'The active users of the instance (USER_VIEW).',
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'User', orderable: true },
    emailAddress: {
      column: 'email',
      kind: 'text',
      expression: 'lower(t.email)',
      normalize: (v) => v.toLowerCase(),
      orderable: true,
      description: 'Compared without regard to case.',
    },
    contactId: { column: 'contact_id', kind: 'ref', refType: 'Contact', description: 'A Contact id.' },
  },
});
