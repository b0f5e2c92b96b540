import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
} from 'graphql';
import { fieldErrors, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { EventObject, eventById } from '../events/index.graphql.js';
import { Decimal } from '../pricing/index.graphql.js';
import type { DelegateRow } from './delegates.data.js';
import { forgetLearners, LearnerObject } from './learners.graphql.js';
import { reactivateLearner, recordAttendance, registerContacts } from './learners.service.js';
import { MAX_ATTENDANCES_PER_CALL, type GivenId } from './registration.rules.js';

/**
 * Learners' mutations: `learner { reactivate recordAttendances }` and `event { registerContacts }`
 * (added to EventMutations by the app). DELEGATE_EDIT, as REST's delegates writes.
 */
const EDIT = 'DELEGATE_EDIT';

/** An id as sent, and the row id it names when it names a `type` (undefined otherwise: a problem shows what was sent). */
const given = (type: string, id: unknown): GivenId => ({ given: id, id: legacyIdOf(type, id) });

const LearnerPayload = payloadType('LearnerPayload', 'learner', () => LearnerObject);
type LearnerAnswer = { learner: DelegateRow | null; errors: FieldError[] };

const LearnerReactivateInput = new GraphQLInputObjectType({
  name: 'LearnerReactivateInput',
  fields: { learnerId: { type: new GraphQLNonNull(GraphQLID), description: 'A cancelled Learner.' } },
});

const LearnerAttendanceInput = new GraphQLInputObjectType({
  name: 'LearnerAttendanceInput',
  description: "Whether a learner attended one session of its event. Each is required; one missing is that item's field error.",
  fields: {
    learnerId: { type: GraphQLID },
    sessionId: { type: GraphQLID, description: "A Session of the learner's event." },
    attended: { type: GraphQLBoolean },
  },
});

type AttendanceItem = { learnerId?: string | null; sessionId?: string | null; attended?: boolean | null };

export const LearnerMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LearnerMutations',
  fields: {
    reactivate: {
      type: LearnerPayload,
      description:
        'Makes a cancelled learner active again on its place (capacity applies: refused when the event has no place left, or its contact holds another active place on it). Fires the Learner Created webhooks: the learner attends again. An active learner is a field error.',
      args: { input: { type: new GraphQLNonNull(LearnerReactivateInput) } },
      async resolve(_root, { input }: { input: { learnerId: string } }, ctx): Promise<LearnerAnswer> {
        requirePermission(ctx, EDIT);
        const { learner, problems } = await reactivateLearner(ctx.db, given('Learner', input.learnerId));
        if (learner) forgetLearners(ctx);
        return { learner, errors: toFieldErrors(problems) };
      },
    },
    recordAttendances: {
      // Nullable, as every mutation of a group: a refused call (a permission, too many items) answers null beside what the others wrote.
      type: new GraphQLList(new GraphQLNonNull(LearnerPayload)),
      description: `Records whether learners attended sessions of their events (again for a session replaces what was recorded). One payload per item, in the order given: each item stands alone (one refused writes nothing, the others are recorded). A single object is taken as a list of one. At most ${MAX_ATTENDANCES_PER_CALL} items: more is refused whole, before anything is recorded.`,
      args: { input: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LearnerAttendanceInput))) } },
      async resolve(_root, { input }: { input: AttendanceItem[] }, ctx): Promise<LearnerAnswer[]> {
        requirePermission(ctx, EDIT);
        // Each item is a few statements of this request's transaction: a bounded number of them.
        if (input.length > MAX_ATTENDANCES_PER_CALL)
          throw badInput(`recordAttendances takes at most ${MAX_ATTENDANCES_PER_CALL} items (${input.length} given)`);
        const answers: LearnerAnswer[] = [];
        // One after another: a transaction is one connection, which runs one statement at a time.
        for (const item of input) {
          const { learner, problems } = await recordAttendance(ctx.db, {
            learner: given('Learner', item.learnerId),
            session: given('Session', item.sessionId),
            attended: item.attended,
          });
          answers.push({ learner, errors: toFieldErrors(problems) });
        }
        if (answers.some((a) => a.learner)) forgetLearners(ctx);
        return answers;
      },
    },
  },
});

const EventRegisterContactsInput = new GraphQLInputObjectType({
  name: 'EventRegisterContactsInput',
  description:
    'Contacts to register on an event, all or none. Lectern keeps `notes` and `communicationsContactId` on each learner; it takes `priceLevelId`, `financialUnitId`, `amount`, `brandId` and `orderDate` and ignores them (a registration here makes no order or invoice: place an order for that).',
  fields: {
    contacts: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)), description: 'The Contacts to register (1 to 100).' },
    notes: { type: GraphQLString, description: "Kept on each learner (REST's delegate notes)." },
    communicationsContactId: { type: GraphQLID, description: "The Contact the learners' communications go to (REST's comms_contact_id)." },
    priceLevelId: { type: GraphQLID, description: 'Ignored.' },
    financialUnitId: { type: GraphQLID, description: 'Ignored.' },
    amount: { type: Decimal, description: 'Ignored.' },
    brandId: { type: GraphQLID, description: 'Ignored.' },
    orderDate: { type: GraphQLString, description: 'Ignored.' },
  },
});

const EventRegisterContactsPayload = new GraphQLObjectType<
  { eventId: number | null; learners: DelegateRow[]; errors: FieldError[] },
  GraphQLContext
>({
  name: 'EventRegisterContactsPayload',
  fields: () => ({
    event: refField<{ eventId: number | null }>(
      EventObject,
      'EVENT_VIEW',
      (p) => p.eventId,
      eventById,
      'The event, with its places after the registration (EVENT_VIEW); null when refused.',
    ),
    learners: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LearnerObject))),
      description: 'The learners made, in the order of `contacts`; empty when refused.',
    },
    errors: fieldErrors,
  }),
});

type RegisterInput = {
  contacts: (string | null)[];
  notes?: string | null;
  communicationsContactId?: string | null;
};

/**
 * `event { registerContacts(eventId, input) }`: contacts registered on an event as learners, all
 * or none (learners.service.ts registerContacts; capacity by holdPlaces, held under concurrency).
 * A contact already registered (active) on the event is a field error. The app adds it to
 * EventMutations.
 */
export const registerContactsField: GraphQLFieldConfig<unknown, GraphQLContext, { eventId: string; input: RegisterInput }> = {
  type: EventRegisterContactsPayload,
  description:
    'Registers contacts on an event as learners, all or none: refused when the event has too few places left, or a contact is already registered on it (DELEGATE_EDIT). Fires Learner Created for each.',
  args: { eventId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(EventRegisterContactsInput) } },
  async resolve(_root, { eventId, input }, ctx) {
    requirePermission(ctx, EDIT);
    const event = given('Event', eventId);
    const { learners, problems } = await registerContacts(ctx.db, event, {
      contacts: input.contacts.map((c) => given('Contact', c)),
      notes: input.notes,
      communicationsContact: input.communicationsContactId == null ? null : given('Contact', input.communicationsContactId),
    });
    if (learners.length) forgetLearners(ctx);
    return { eventId: problems.length ? null : event.id!, learners, errors: toFieldErrors(problems) };
  },
};
