import { GraphQLID, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { PageInfo } from '../../kit/graphql/lists.js';

/**
 * `accountAssociations { edges { node { account { id name } associationType { id name } } } }`
 * of a course template (and a learning path), as integrations select it (real-clients.md
 * section 3): the accounts (customers, partners) a course is associated with. Lectern keeps no
 * accounts nor associations, so there are none: the list is empty, never an error, and a website
 * that shows associated accounts shows none.
 */

const EMPTY_PAGE = { edges: [], pageInfo: { startCursor: null, endCursor: null, totalRecords: 0, hasNextPage: false, hasPreviousPage: false } };

/** A connection type of `node` with its edge type, named `<name>Connection` / `<name>Edge`. */
function connectionOf(name: string, node: GraphQLObjectType): GraphQLObjectType {
  const edge = new GraphQLObjectType({ name: `${name}Edge`, fields: { node: { type: new GraphQLNonNull(node) }, cursor: { type: new GraphQLNonNull(GraphQLString) } } });
  return new GraphQLObjectType({
    name: `${name}Connection`,
    fields: { edges: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))) }, pageInfo: { type: new GraphQLNonNull(PageInfo) } },
  });
}

const Account = new GraphQLObjectType({
  name: 'Account',
  description: 'A customer or partner organisation (Lectern keeps none: no association names one).',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: new GraphQLNonNull(GraphQLString) } },
});

const AccountAssociationType = new GraphQLObjectType({
  name: 'AccountAssociationType',
  description: 'How an account is associated with a course (partner, customer...).',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: new GraphQLNonNull(GraphQLString) } },
});

const AccountAssociation = new GraphQLObjectType({
  name: 'AccountAssociation',
  fields: { account: { type: new GraphQLNonNull(Account) }, associationType: { type: new GraphQLNonNull(AccountAssociationType) } },
});

const AccountAssociationConnection = connectionOf('AccountAssociation', AccountAssociation);

/** `accountAssociations`: always empty (Lectern has no accounts), in the shape clients select. */
export function accountAssociationsField<P>(): GraphQLFieldConfig<P, GraphQLContext> {
  return { type: new GraphQLNonNull(AccountAssociationConnection), description: 'Accounts associated with it: none (Lectern keeps no accounts).', resolve: () => EMPTY_PAGE };
}
