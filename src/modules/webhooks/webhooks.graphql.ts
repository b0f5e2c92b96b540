import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLSchema,
} from 'graphql';
import { fieldErrors } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { listQuery, nestedFirst, wholeConnection, DEFAULT_PAGE } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, registerNode } from '../../kit/graphql/node.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { badInput } from '../../kit/graphql/errors.js';
import { objectIdOf, WEBHOOK_TYPES, webhookGlobalId, webhookType, type WebhookType } from './webhook-types.js';
import {
  deliveriesOfWebhook,
  eventsByIds,
  Webhook as WebhookModel,
  webhooksByIds,
  type DeliveryRow,
  type WebhookRow,
} from './webhooks.data.js';
import { webhookTypeOfId, type WebhookInput } from './webhooks.rules.js';
import { storedQueryCheck } from './webhook-payload.graphql.js';
import {
  changeWebhook,
  createWebhook,
  deleteWebhook,
  fireManualWebhook,
  resendDelivery,
  rotateSigningSecret,
  sendTestDelivery,
  type WebhookWriter,
} from './webhooks.service.js';

/**
 * Webhooks in Core GraphQL, as real clients register them (real-clients.md section 5.A):
 * `webhookTypes`, `webhooks`, and `mutation { webhooks { create update ... } }` (WEBHOOKS_VIEW /
 * WEBHOOKS_EDIT). A webhook's id is spelled `OutboundHook:<n>`, as the production service's are
 * (and as its deliveries' `metadata.webhook_id` name it); `Webhook:<n>` is read too.
 */
const VIEW = 'WEBHOOKS_VIEW';
const EDIT = 'WEBHOOKS_EDIT';
/** The production service documents 200 as the page size of these lists, and clients ask for it. */
const MAX_PAGE = 200;

/** The webhook an id names (`OutboundHook:<n>`, or `Webhook:<n>`). */
const webhookLegacyId = (id: string) => legacyIdOf('Webhook', id);

const typeIdOf = (t: WebhookType) => Buffer.from(`WebhookType:${t.key}`, 'utf8').toString('base64');

export const WebhookTypeObject = new GraphQLObjectType<WebhookType, GraphQLContext>({
  name: 'WebhookType',
  description: 'What a webhook can be told of. Its id is base64 of `WebhookType:<key>` (e.g. `WebhookType:event_updated`).',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: typeIdOf },
    name: { type: new GraphQLNonNull(GraphQLString), description: 'As clients look types up: `Event Updated`, `Learner Created`...' },
    key: { type: new GraphQLNonNull(GraphQLString), description: 'The snake_case key in the id.' },
    objectType: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'The type of the record `$objectid` names (an event is spelled `Course:<n>`, as receivers decode it).',
      resolve: (t) => t.entity,
    },
    manual: {
      type: new GraphQLNonNull(GraphQLBoolean),
      resolve: (t) => t.manual === true,
      description: 'Fired by hand on one record (`webhooks { trigger }`, the Control Panel), not by a change.',
    },
  },
});

export const WebhookLifecycleStateEnum = new GraphQLEnumType({
  name: 'WebhookLifecycleState',
  values: {
    active: { value: 'active' },
    disabled: { value: 'disabled', description: 'No deliveries: by hand, after a 410, or after failing too long.' },
  },
});

const DeliveryStateEnum = new GraphQLEnumType({
  name: 'WebhookDeliveryState',
  values: {
    pending: { value: 'pending', description: 'Waiting for its first attempt or a retry.' },
    delivered: { value: 'delivered', description: 'The receiver answered 2xx.' },
    failed: { value: 'failed', description: 'Given up: out of attempts, refused, or the webhook disabled.' },
  },
});

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

const deliveryEvent = (ctx: GraphQLContext, eventId: number) =>
  ctx.loader('WebhookDelivery.event', (db) => byId((ids) => eventsByIds(db, ids))).load(eventId);

export const WebhookDeliveryObject: GraphQLObjectType<DeliveryRow, GraphQLContext> = new GraphQLObjectType<DeliveryRow, GraphQLContext>({
  name: 'WebhookDelivery',
  description: 'One change sent (or to be sent) to one webhook, with its attempts.',
  fields: () => ({
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (d) => toGlobalId('WebhookDelivery', d.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (d) => d.id },
    state: { type: new GraphQLNonNull(DeliveryStateEnum) },
    attempts: { type: new GraphQLNonNull(GraphQLInt), description: 'Attempts made so far.' },
    statusCode: { type: GraphQLInt, resolve: (d) => d.status_code, description: "The last attempt's HTTP status (null: no answer)." },
    durationMs: { type: GraphQLInt, resolve: (d) => d.duration_ms, description: 'How long the last attempt took.' },
    responseExcerpt: { type: GraphQLString, resolve: (d) => d.response_excerpt, description: "The first 1 KB of the last answer's body." },
    error: { type: GraphQLString, description: 'Why the last attempt failed (null: it did not).' },
    nextAttemptAt: {
      type: GraphQLString,
      resolve: (d) => iso(d.next_attempt_at),
      description: 'When the next retry is due (pending only).',
    },
    lastAttemptAt: { type: GraphQLString, resolve: (d) => iso(d.last_attempt_at) },
    deliveredAt: { type: GraphQLString, resolve: (d) => iso(d.delivered_at) },
    createdAt: { type: new GraphQLNonNull(GraphQLString), resolve: (d) => iso(d.created_at) },
    webhookType: {
      type: WebhookTypeObject,
      resolve: async (d, _a, ctx) => webhookType((await deliveryEvent(ctx, d.event_id))?.type_key ?? ''),
    },
    objectId: {
      type: GraphQLID,
      description: 'The id the stored query ran with (`$objectid`).',
      resolve: async (d, _a, ctx) => {
        const event = await deliveryEvent(ctx, d.event_id);
        const type = event && webhookType(event.type_key);
        return type && event ? objectIdOf(type.entity, event.record_id) : null;
      },
    },
    triggeredAt: { type: GraphQLString, resolve: async (d, _a, ctx) => iso((await deliveryEvent(ctx, d.event_id))?.triggered_at ?? null) },
  }),
});

const deliveries = wholeConnection<DeliveryRow>('WebhookDelivery', () => WebhookDeliveryObject);

export const WebhookObject = new GraphQLObjectType<WebhookRow, GraphQLContext>({
  name: 'Webhook',
  interfaces: [NodeInterface],
  description: 'A callback told of changes of one type: the stored `query` runs with `$objectid` and its answer is POSTed to `url`.',
  fields: () => ({
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (w) => webhookGlobalId(w.id), description: 'Base64 of `OutboundHook:<n>`.' },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (w) => w.id },
    name: { type: new GraphQLNonNull(GraphQLString) },
    url: { type: new GraphQLNonNull(GraphQLString) },
    query: { type: new GraphQLNonNull(GraphQLString), description: 'The stored payload query.' },
    lifecycleState: { type: new GraphQLNonNull(WebhookLifecycleStateEnum), resolve: (w) => w.lifecycle_state },
    disabledReason: { type: GraphQLString, resolve: (w) => w.disabled_reason },
    webhookType: { type: WebhookTypeObject, resolve: (w) => webhookType(w.type_key) ?? null },
    emailAddress: { type: GraphQLString, resolve: (w) => w.notification_emails[0] ?? null, description: 'The first notification address.' },
    notificationEmails: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
      resolve: (w) => w.notification_emails,
      description: 'Where failure notices go.',
    },
    failingSince: {
      type: GraphQLString,
      resolve: (w) => iso(w.failing_since),
      description: 'Since when every delivery has failed (null: the last one went through).',
    },
    createdAt: { type: new GraphQLNonNull(GraphQLString), resolve: (w) => iso(w.created_at) },
    updatedAt: { type: new GraphQLNonNull(GraphQLString), resolve: (w) => iso(w.updated_at) },
    deliveries: {
      type: new GraphQLNonNull(deliveries.type),
      description: 'Its deliveries, newest first.',
      args: { first: { type: GraphQLInt }, offset: { type: GraphQLInt }, state: { type: DeliveryStateEnum } },
      async resolve(w, args: { first?: number | null; offset?: number | null; state?: DeliveryRow['state'] | null }, ctx) {
        const first = nestedFirst(args);
        const offset = args.offset ?? 0;
        if (offset < 0) throw badInput('offset must not be negative');
        const page = await deliveriesOfWebhook(ctx.db, w.id, { first, offset, state: args.state ?? undefined });
        return deliveries.page(ctx, page.rows, page.total);
      },
    },
  }),
});

const webhookById = (ctx: GraphQLContext, id: number) => ctx.loader('Webhook.byId', (db) => byId((ids) => webhooksByIds(db, ids))).load(id);
registerNode('Webhook', { permission: VIEW, load: webhookById });

export const webhooksQuery = listQuery<WebhookRow>({
  typeName: 'Webhook',
  table: WebhookModel.tableName,
  permission: VIEW,
  maxPage: MAX_PAGE,
  node: () => WebhookObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Webhook', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    url: { column: 'url', kind: 'text' },
    lifecycleState: { column: 'lifecycle_state', kind: 'enum', enumValues: ['active', 'disabled'] },
    webhookTypeKey: { column: 'type_key', kind: 'text', description: 'The key of its type (`event_updated`).' },
    createdAt: { column: 'created_at', kind: 'instant', orderable: true },
  },
});

const typesConnection = wholeConnection<WebhookType>('WebhookType', WebhookTypeObject);

export const webhookTypesQuery: GraphQLFieldConfig<unknown, GraphQLContext, { first?: number | null; offset?: number | null }> = {
  type: new GraphQLNonNull(typesConnection.type),
  description: 'The webhook types, by name (`Event Updated`...). Needs WEBHOOKS_VIEW.',
  args: { first: { type: GraphQLInt, description: `Default ${DEFAULT_PAGE}, at most ${MAX_PAGE}.` }, offset: { type: GraphQLInt } },
  resolve(_root, args, ctx) {
    requirePermission(ctx, VIEW);
    const first = args.first ?? DEFAULT_PAGE;
    const offset = args.offset ?? 0;
    if (first < 0 || first > MAX_PAGE) throw badInput(`first must be between 0 and ${MAX_PAGE}`);
    if (offset < 0) throw badInput('offset must not be negative');
    return typesConnection.page(ctx, WEBHOOK_TYPES.slice(offset, offset + first), WEBHOOK_TYPES.length);
  },
};

const common = {
  name: { type: GraphQLString },
  query: {
    type: GraphQLString,
    description: 'The payload query: one query declaring `$objectid: ID!` (or `String!`), checked now against this API.',
  },
  url: { type: GraphQLString, description: 'Where deliveries are POSTed (http or https; private addresses are refused when sent to).' },
  config: {
    type: GraphQLString,
    description: 'A JSON object sent as a string: the envelope\'s `configuration` (e.g. "{\\"secret\\": \\"...\\"}").',
  },
  notificationEmails: { type: new GraphQLList(GraphQLString), description: 'Where failure notices go.' },
  emailAddress: { type: GraphQLString, description: 'One more notification address.' },
  lifecycleState: { type: WebhookLifecycleStateEnum },
};
const WebhookCreateInput = new GraphQLInputObjectType({
  name: 'WebhookCreateInput',
  fields: { ...common, webhookTypeId: { type: GraphQLID, description: 'A WebhookType id (fixed once created).' } },
});
const WebhookUpdateInput = new GraphQLInputObjectType({
  name: 'WebhookUpdateInput',
  description: 'Only the fields given change. `webhookTypeId` is refused: a webhook keeps its type.',
  fields: { webhookId: { type: new GraphQLNonNull(GraphQLID) }, ...common, webhookTypeId: { type: GraphQLID, description: 'Refused.' } },
});

const WebhookPayload = new GraphQLObjectType({
  name: 'WebhookPayload',
  fields: () => ({
    webhook: { type: WebhookObject },
    signingSecret: {
      type: GraphQLString,
      description: 'The signing secret (`whsec_...`) of the Standard Webhooks signature: shown on create and rotate only.',
    },
    errors: fieldErrors,
  }),
});
const WebhookDeliveryPayload = new GraphQLObjectType({
  name: 'WebhookDeliveryPayload',
  fields: () => ({ delivery: { type: WebhookDeliveryObject }, errors: fieldErrors }),
});
const WebhookDeletePayload = new GraphQLObjectType({
  name: 'WebhookDeletePayload',
  fields: { deleted: { type: new GraphQLNonNull(GraphQLBoolean) }, errors: fieldErrors },
});
const WebhookTriggerPayload = new GraphQLObjectType({
  name: 'WebhookTriggerPayload',
  fields: {
    deliveries: { type: new GraphQLNonNull(GraphQLInt), description: 'Deliveries queued (one per active webhook of the type).' },
    errors: fieldErrors,
  },
});

type Payload = { webhook: WebhookRow | null; signingSecret?: string | null; errors: FieldError[] };

function writer(ctx: GraphQLContext, schema: GraphQLSchema): WebhookWriter {
  return { tenantId: ctx.tenant.id, userId: ctx.user.id, checkQuery: storedQueryCheck(schema), context: 'graphql' };
}

const notFound = (label: string, value: string, what: string) => [fieldError(label, value, `${what} not found`)];

/** The write's input as the service takes it (absent keys stay absent). */
function inputOf(raw: Record<string, unknown>): WebhookInput {
  const { webhookId: _id, ...rest } = raw;
  return rest as WebhookInput;
}

/**
 * The group's settings: how long a rotated-out secret keeps signing. The app gives it
 * (WEBHOOK_SECRET_OVERLAP); the schema is built once per process.
 */
export function webhookMutations(opts: { secretOverlapMs: number }) {
  return new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'WebhookMutations',
    fields: {
      create: {
        type: WebhookPayload,
        args: { input: { type: new GraphQLNonNull(WebhookCreateInput) } },
        async resolve(_root, { input }: { input: Record<string, unknown> }, ctx, info): Promise<Payload> {
          requirePermission(ctx, EDIT);
          const { webhook, signingSecret, problems } = await createWebhook(ctx.db, inputOf(input), writer(ctx, info.schema));
          return { webhook, signingSecret, errors: toFieldErrors(problems) };
        },
      },
      update: {
        type: WebhookPayload,
        args: { input: { type: new GraphQLNonNull(WebhookUpdateInput) } },
        async resolve(_root, { input }: { input: Record<string, unknown> & { webhookId: string } }, ctx, info): Promise<Payload> {
          requirePermission(ctx, EDIT);
          const id = webhookLegacyId(input.webhookId);
          if (id === undefined) return { webhook: null, errors: notFound('webhookId', input.webhookId, 'Webhook') };
          const { webhook, problems } = await changeWebhook(ctx.db, id, inputOf(input), {
            userId: ctx.user.id,
            checkQuery: storedQueryCheck(info.schema),
          });
          ctx.forget('Webhook.byId');
          return {
            webhook,
            errors: toFieldErrors(problems.map((p) => (p.field === 'webhookId' ? { ...p, value: input.webhookId } : p))),
          };
        },
      },
      rotateSigningSecret: {
        type: WebhookPayload,
        description: 'A new signing secret, shown once; the old one keeps signing beside it for WEBHOOK_SECRET_OVERLAP (24 h).',
        args: { webhookId: { type: new GraphQLNonNull(GraphQLID) } },
        async resolve(_root, { webhookId }: { webhookId: string }, ctx): Promise<Payload> {
          requirePermission(ctx, EDIT);
          const id = webhookLegacyId(webhookId);
          if (id === undefined) return { webhook: null, errors: notFound('webhookId', webhookId, 'Webhook') };
          const { webhook, signingSecret, problems } = await rotateSigningSecret(ctx.db, id, opts.secretOverlapMs);
          return { webhook, signingSecret, errors: toFieldErrors(problems.map((p) => ({ ...p, value: webhookId }))) };
        },
      },
      delete: {
        type: WebhookDeletePayload,
        description: "Deletes a webhook with its deliveries (those pending are not sent). Lectern's own: the production service has none.",
        args: { webhookId: { type: new GraphQLNonNull(GraphQLID) } },
        async resolve(_root, { webhookId }: { webhookId: string }, ctx) {
          requirePermission(ctx, EDIT);
          const id = webhookLegacyId(webhookId);
          if (id === undefined) return { deleted: false, errors: notFound('webhookId', webhookId, 'Webhook') };
          const { deleted, problems } = await deleteWebhook(ctx.db, id);
          ctx.forget('Webhook.byId');
          return { deleted, errors: toFieldErrors(problems.map((p) => ({ ...p, value: webhookId }))) };
        },
      },
      resend: {
        type: WebhookDeliveryPayload,
        description: 'Sends a delivery again (the same `webhook-id`; `is_retry` true).',
        args: { deliveryId: { type: new GraphQLNonNull(GraphQLID) } },
        async resolve(_root, { deliveryId }: { deliveryId: string }, ctx) {
          requirePermission(ctx, EDIT);
          const id = legacyIdOf('WebhookDelivery', deliveryId);
          if (id === undefined) return { delivery: null, errors: notFound('deliveryId', deliveryId, 'Delivery') };
          const { delivery, problems } = await resendDelivery(ctx.db, ctx.tenant.id, id);
          return { delivery, errors: toFieldErrors(problems.map((p) => ({ ...p, value: deliveryId }))) };
        },
      },
      sendTest: {
        type: WebhookDeliveryPayload,
        description:
          'Sends one delivery to this webhook now: its stored query run for `objectId` (a record of its type), or for no record.',
        args: { webhookId: { type: new GraphQLNonNull(GraphQLID) }, objectId: { type: GraphQLID } },
        async resolve(_root, { webhookId, objectId }: { webhookId: string; objectId?: string | null }, ctx) {
          requirePermission(ctx, EDIT);
          const id = webhookLegacyId(webhookId);
          if (id === undefined) return { delivery: null, errors: notFound('webhookId', webhookId, 'Webhook') };
          const { delivery, problems } = await sendTestDelivery(ctx.db, id, objectId ?? null, {
            tenantId: ctx.tenant.id,
            userId: ctx.user.id,
            context: 'graphql',
          });
          return { delivery, errors: toFieldErrors(problems.map((p) => (p.field === 'webhookId' ? { ...p, value: webhookId } : p))) };
        },
      },
      trigger: {
        type: WebhookTriggerPayload,
        description:
          'Fires a manual webhook type (`Manual Event`, `Manual Course Template`) for one record: one delivery per active webhook of it.',
        args: { webhookTypeId: { type: new GraphQLNonNull(GraphQLID) }, objectId: { type: new GraphQLNonNull(GraphQLID) } },
        async resolve(_root, { webhookTypeId, objectId }: { webhookTypeId: string; objectId: string }, ctx) {
          requirePermission(ctx, EDIT);
          const { deliveries: n, problems } = await fireManualWebhook(ctx.db, webhookTypeOfId(webhookTypeId), objectId, {
            tenantId: ctx.tenant.id,
            userId: ctx.user.id,
            context: 'graphql',
          });
          return {
            deliveries: n,
            errors: toFieldErrors(problems.map((p) => (p.field === 'webhookTypeId' ? { ...p, value: webhookTypeId } : p))),
          };
        },
      },
    },
  });
}
