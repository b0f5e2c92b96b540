import { GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { wholeConnection } from '../../kit/graphql/lists.js';
import { AccountObject } from '../crm/index.graphql.js';

/**
 * `accountAssociations { edges { node { account { id name } associationType { id name } } } }`
 * of a course template (and a learning path), as integrations select it (real-clients.md
 * section 3): the accounts (customers, partners: crm's `Account`) a course is associated with.
 * Lectern keeps no associations between courses and accounts, so there are none: the list is
 * empty, never an error, and a website that shows associated accounts shows none.
 */

const AccountAssociationTypeObject = new GraphQLObjectType({
  name: 'AccountAssociationType',
  description: 'How an account is associated with a course (partner, customer...).',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: new GraphQLNonNull(GraphQLString) } },
});

const AccountAssociationObject = new GraphQLObjectType({
  name: 'AccountAssociation',
  fields: {
    account: { type: new GraphQLNonNull(AccountObject) },
    associationType: { type: new GraphQLNonNull(AccountAssociationTypeObject) },
  },
});

const associations = wholeConnection<never>('AccountAssociation', AccountAssociationObject);

/** `accountAssociations`: always empty (Lectern has no accounts), in the shape clients select. */
export function accountAssociationsField<P>(): GraphQLFieldConfig<P, GraphQLContext> {
  return {
    type: new GraphQLNonNull(associations.type),
    description: 'Accounts associated with it: none (Lectern keeps no associations of courses with accounts).',
    resolve: (_p, _a, ctx) => associations.page(ctx, []),
  };
}
