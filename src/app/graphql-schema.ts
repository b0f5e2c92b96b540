import { GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { applyToEventsMutation, backgroundJobQuery } from '../modules/background-jobs/background-jobs.graphql.js';
import { learningCategoriesQuery, LearningCategoryMutations } from '../modules/categories/categories.graphql.js';
import {
  courseTemplateMutations,
  courseTemplateQuery,
  courseTemplatesQuery,
} from '../modules/course-templates/course-templates.graphql.js';
import { catalogueQuery } from '../modules/catalogue/catalogue.graphql.js';
import {
  CustomFieldDefinitionMutations,
  customFieldDefinitionsQuery,
  customFieldTemplateQuery,
} from '../modules/custom-fields/custom-fields.graphql.js';
import { LearningPathMutations, learningPathsQuery } from '../modules/learning-paths/learning-paths.graphql.js';
import { OBJECTIVE_TYPES } from '../modules/learning-paths/learning-objectives.graphql.js';
import { EventMutations } from '../modules/events/event-mutations.graphql.js';
import { eventsQuery } from '../modules/events/events-list.graphql.js';
import { SessionMutations } from '../modules/events/session-mutations.graphql.js';
import { VenueMutations, venuesQuery } from '../modules/venues/venues.graphql.js';
import { documentsQuery, downloadDocumentQuery } from '../modules/documents/documents.graphql.js';
import { LearnerObject } from '../modules/delegates/index.graphql.js';
import { AccountMutations, accountsQuery, countriesQuery } from '../modules/crm/accounts.graphql.js';
import { contactsQuery } from '../modules/crm/contacts-list.graphql.js';
import { usersQuery } from '../modules/users/users.graphql.js';
import { contactLearnersField, eventLearnersField, learnersQuery } from '../modules/delegates/learners.graphql.js';
import { LearnerMutations, registerContactsField } from '../modules/delegates/learner-mutations.graphql.js';
import { LocaleMutations, localesQuery } from '../modules/locales/locales.graphql.js';
import { LocationMutations, locationsQuery } from '../modules/locations/locations.graphql.js';
import { invoicesQuery, OpportunityMutations, opportunitiesQuery } from '../modules/orders/orders.graphql.js';
import { TaxTypeMutations, taxTypesQuery } from '../modules/tax-types/tax-types.graphql.js';
import { currenciesQuery, priceLevelsQuery, regionsQuery } from '../modules/pricing/pricing.graphql.js';
import { portalsQuery } from '../modules/portals/portals.graphql.js';
import type { GraphQLContext } from '../kit/graphql/context.js';
import { nodeQuery } from '../kit/graphql/node.js';
import { extendObject } from '../kit/graphql/extensions.js';
import { webhookMutations, webhooksQuery, webhookTypesQuery } from '../modules/webhooks/webhooks.graphql.js';
import { EventObject, eventById, SessionObject, sessionById } from '../modules/events/index.graphql.js';
import {
  eventStaffField,
  eventStaffMutations,
  sessionStaffField,
  sessionStaffMutations,
  staffEventField,
} from '../modules/staff/staff.graphql.js';

/**
 * The Core GraphQL schema, assembled from the modules. Conventions (api-conventions.md): Node
 * ids, list queries with filters/order/paging answering connections, and mutations grouped
 * under an entity field answering the object and FieldErrors. `schema.graphql` at the
 * project root is this schema's SDL (`npm run schema` writes it; a test fails when it is stale).
 */

// Learners on contacts and events, and registering contacts: the delegates module's fields on others' types.
extendObject('Contact', { learners: contactLearnersField });
extendObject('Event', { learners: eventLearnersField });
extendObject('EventMutations', { registerContacts: registerContactsField });
// Event staff: the staff module's fields on events (it is handed the events module's Event, which it does not import).
extendObject('Event', { staff: eventStaffField });
extendObject('EventMutations', eventStaffMutations({ EventObject, eventById }));
extendObject('Staff', { event: staffEventField({ EventObject, eventById }) });
extendObject('Session', { staff: sessionStaffField });
extendObject('SessionMutations', sessionStaffMutations({ SessionObject, sessionById }));

const inTurn = new WeakSet<GraphQLObjectType>();

/**
 * A mutation group: `mutation { courseTemplate { update(...) { ... } } }`. Its mutations run one
 * after another ({@link GraphQLContext.inTurn}), as top-level mutation fields do. Each answers
 * a nullable payload, so one refused mutation (a permission error) does not hide what the
 * others of the group wrote.
 */
function group(type: GraphQLObjectType<unknown, GraphQLContext>, description: string) {
  if (!inTurn.has(type)) {
    inTurn.add(type);
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (resolve) field.resolve = (source, args, ctx: GraphQLContext, info) => ctx.inTurn(async () => resolve(source, args, ctx, info));
    }
  }
  return { type: new GraphQLNonNull(type), description, resolve: () => ({}) };
}

/** What the schema's resolvers take from the configuration; the defaults are the configuration's defaults. */
export interface SchemaOptions {
  /** WEBHOOK_SECRET_OVERLAP: how long a rotated-out signing secret keeps signing. */
  webhookSecretOverlapMs: number;
}

export function buildSchema(opts: SchemaOptions = { webhookSecretOverlapMs: 86_400_000 }): GraphQLSchema {
  const query = new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'Query',
    fields: {
      hello: {
        type: new GraphQLNonNull(GraphQLString),
        description: 'A greeting for the user the access token acts as: a way to check a token.',
        resolve: (_root, _args, ctx) => `Hello, ${ctx.user.email}!`,
      },
      echo: {
        type: GraphQLString,
        description: "Answers its argument: what a webhook's stored query selects for a record it cannot read (one deleted).",
        args: { value: { type: new GraphQLNonNull(GraphQLString) } },
        resolve: (_root, { value }: { value: string }) => value,
      },
      node: nodeQuery,
      locales: localesQuery,
      courseTemplate: courseTemplateQuery,
      courseTemplates: courseTemplatesQuery,
      learningCategories: learningCategoriesQuery,
      learningPaths: learningPathsQuery,
      customFieldDefinitions: customFieldDefinitionsQuery,
      customFieldTemplate: customFieldTemplateQuery,
      catalogue: catalogueQuery,
      downloadDocument: downloadDocumentQuery,
      documents: documentsQuery({ courseTemplates: courseTemplatesQuery, learningPaths: learningPathsQuery }),
      events: eventsQuery,
      locations: locationsQuery,
      venues: venuesQuery,
      taxTypes: taxTypesQuery,
      backgroundJob: backgroundJobQuery,
      opportunities: opportunitiesQuery,
      invoices: invoicesQuery,
      webhookTypes: webhookTypesQuery,
      webhooks: webhooksQuery,
      contacts: contactsQuery,
      accounts: accountsQuery,
      countries: countriesQuery,
      users: usersQuery,
      learners: learnersQuery,
      priceLevels: priceLevelsQuery,
      currencies: currenciesQuery,
      regions: regionsQuery,
      portals: portalsQuery,
    },
  });
  const mutation = new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'Mutation',
    fields: {
      courseTemplate: group(
        courseTemplateMutations({ applyToEvents: applyToEventsMutation }),
        'Create and update course templates and their translations (COURSE_TEMPLATE_EDIT).',
      ),
      learningPaths: group(LearningPathMutations, 'Create and update learning paths and their translations (LEARNING_PATH_EDIT).'),
      learningCategory: group(LearningCategoryMutations, 'Translations of categories (CATEGORY_EDIT).'),
      locale: group(LocaleMutations, "The instance's locales (LOCALE_EDIT)."),
      customFieldDefinition: group(CustomFieldDefinitionMutations, 'Custom field definitions (CUSTOM_FIELD_EDIT).'),
      event: group(EventMutations, 'Create and duplicate events (EVENT_EDIT).'),
      location: group(LocationMutations, 'Locations of events (LOCATION_EDIT).'),
      venue: group(VenueMutations, 'Venues: where in a location events and sessions meet (LOCATION_EDIT).'),
      session: group(SessionMutations, "Change and delete events' sessions (EVENT_EDIT)."),
      taxType: group(TaxTypeMutations, 'Tax types of events (TAX_TYPE_EDIT).'),
      opportunity: group(OpportunityMutations, 'Orders and other opportunities (OPPORTUNITY_EDIT).'),
      account: group(AccountMutations, 'Accounts (companies): create, update, merge (COMPANY_EDIT).'),
      learner: group(LearnerMutations, 'Learners: reactivate one, record attendance (DELEGATE_EDIT).'),
      webhooks: group(
        webhookMutations({ secretOverlapMs: opts.webhookSecretOverlapMs }),
        'Webhooks: callbacks told of changes (WEBHOOKS_EDIT).',
      ),
    },
  });
  // Types reached only through an interface (a learning path's objectives, a learner's node) are listed, so the schema has them.
  return new GraphQLSchema({ query, mutation, types: [...OBJECTIVE_TYPES, LearnerObject] });
}
