import DataLoader from 'dataloader';
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { refField } from '../../kit/graphql/permissions.js';
import { contactField } from '../crm/index.graphql.js';
import { EventObject, eventById } from '../events/index.graphql.js';
import { delegatesOfRegistrations, type DelegateRow } from './delegates.data.js';

/**
 * Delegates in GraphQL: for now the delegates a registration made (`Registration.delegates`,
 * see orders.graphql.ts). A named row has a contact; an unnamed one holds `numPlaces`. A named
 * row is also a Learner (learners.graphql.ts).
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
