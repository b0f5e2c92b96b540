import DataLoader from 'dataloader';
import { GraphQLEnumType, GraphQLInt, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField } from '../../kit/graphql/permissions.js';
import { contactField } from '../crm/index.graphql.js';
import { EventObject, eventById } from '../events/index.graphql.js';
import { delegatesOfRegistrations, learnersByIds, type DelegateRow } from './delegates.data.js';

/**
 * Delegates in GraphQL: for now the delegates a registration made (`Registration.delegates`,
 * see orders.graphql.ts). A named row has a contact; an unnamed one holds `numPlaces`.
 */
export const DelegateObject = new GraphQLObjectType<DelegateRow, GraphQLContext>({
  name: 'Delegate',
  fields: () => ({
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (d) => d.id },
    event: refField<DelegateRow>(EventObject, 'EVENT_VIEW', (d) => d.event_id, eventById),
    contact: contactField<DelegateRow>((d) => d.contact_id ?? null, 'null on a row of places bought without names.'),
    numPlaces: { type: GraphQLInt, resolve: (d) => d.num_places, description: 'Places held by an unnamed row.' },
  }),
});

/** The delegates of a registration, oldest first, read for a page of registrations at once. */
export const delegatesOfRegistration = (ctx: GraphQLContext, registrationId: number): Promise<DelegateRow[]> =>
  ctx
    .loader(
      'Registration.delegates',
      (db) =>
        new DataLoader<number, DelegateRow[]>(async (ids) => {
          const groups = new Map<number, DelegateRow[]>();
          for (const row of await delegatesOfRegistrations(db, ids)) {
            const group = groups.get(row.registration_id!);
            if (group) group.push(row);
            else groups.set(row.registration_id!, [row]);
          }
          return ids.map((id) => groups.get(id) ?? []);
        }),
    )
    .load(registrationId);

/** Reading a learner: the delegates' view permission (REST `event/delegates` reads need it too). */
const VIEW = 'DELEGATE_VIEW';

/** This request's learner with this id (a named delegate row), or undefined; a page's learners in one statement. */
export const learnerById = (ctx: GraphQLContext, id: number): Promise<DelegateRow | undefined> =>
  ctx.loader('Learner.byId', (db) => byId((ids) => learnersByIds(db, ids))).load(id);

/** Where a learner stands: `cancelled` once the place is cancelled (`cancelled_date` set), else `active`. */
export const LearnerLifecycleStateEnum = new GraphQLEnumType({
  name: 'LearnerLifecycleState',
  description: 'active, or cancelled once the place is cancelled.',
  values: { active: { value: 'active' }, cancelled: { value: 'cancelled' } },
});

/**
 * A learner: a contact's place on an event (a named delegate row; the rows of places bought
 * without names are not learners), id `Learner:<delegate id>`. What webhooks' stored queries
 * read of one (Learner Created / Cancelled: `node(id) { ... on Learner { lifecycleState contact
 * event } }`); the rest of it (attendance) comes with the `learners` list.
 */
export const LearnerObject = new GraphQLObjectType<DelegateRow, GraphQLContext>({
  name: 'Learner',
  description: "A contact's place on an event (a named delegate).",
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Learner'),
    lifecycleState: {
      type: new GraphQLNonNull(LearnerLifecycleStateEnum),
      resolve: (d) => (d.cancelled_date === null ? 'active' : 'cancelled'),
    },
    contact: contactField<DelegateRow>((d) => d.contact_id, 'The person who holds the place (CONTACT_VIEW).'),
    event: refField<DelegateRow>(EventObject, 'EVENT_VIEW', (d) => d.event_id, eventById, 'The event the place is on (EVENT_VIEW).'),
  }),
});

registerNode('Learner', { permission: VIEW, load: (ctx, id) => learnerById(ctx, id) });
