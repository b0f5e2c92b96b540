import Router from '@koa/router';
import { basicAuth } from '../modules/users/basic-auth.js';
import { bodyErrors } from '../kit/http/body.js';
import { WriteAdmission, writeAdmission } from '../kit/http/admission.js';
import { tenantOf, type AppContext, type AppMiddleware, type AppState } from '../kit/http/context.js';
import { dbOf, requestDb } from '../kit/http/request-db.js';
import type { Knex } from '../platform/db/knex.js';
import { NotFoundError } from '../platform/errors.js';
import { z } from 'zod';
import { orderSchema, parseIdempotencyKey } from '../modules/orders/order-input.js';
import { placeOrder } from '../modules/orders/orders.service.js';
import { assertPermission } from '../platform/permissions.js';
import { companies } from '../modules/crm/companies.rest.js';
import { campaigns } from '../modules/crm/campaigns.rest.js';
import { contacts } from '../modules/crm/contacts.rest.js';
import { marketingActivities } from '../modules/crm/marketing-activities.rest.js';
import { categories } from '../modules/categories/categories.rest.js';
import { customTemplates } from '../modules/course-templates/custom-templates.rest.js';
import {
  addCustomTemplateMapping,
  delegatesResource,
  delegateScores,
  nameDelegatePlace,
  saveDelegateScores,
} from '../modules/delegates/delegates.rest.js';
import { eventTemplates } from '../modules/course-templates/event-templates.rest.js';
import { publicEventsResource } from '../modules/events/public-events.rest.js';
import type { Runtime } from './runtime.js';
import type { Resource } from '../kit/rest/resource.js';
import type { LegacyUsageRecorder } from '../kit/rest/usage.js';

// Resources that embed another module's records get that module's resource here: a module's face never imports another's.
const publicEvents = publicEventsResource({ eventTemplates });
const delegates = delegatesResource({ events: publicEvents, contacts });

/** Every REST resource, in the order the OpenAPI document lists them. */
export const RESOURCES: readonly Resource[] = [
  marketingActivities,
  campaigns,
  contacts,
  companies,
  categories,
  delegates,
  publicEvents,
  eventTemplates,
  customTemplates,
];

/** `:id` is an integer path segment; anything else names no entity. */
function idParam(ctx: AppContext, name = 'id'): number {
  const raw = (ctx as unknown as { params: Record<string, string> }).params[name] ?? '';
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2147483647) throw new NotFoundError(`No entity with id '${raw}'`);
  return Number(raw);
}

/**
 * The template of the route the router matched for this request (`/api/v2/crm/contacts/:id`), or
 * of its last middleware when no route matched: the last layer the router found for the path
 * that runs for the method, as `router.match(path, method).pathAndMethod.at(-1)` would answer,
 * read from what the router kept of its match (`ctx.matched`, this router's layers last) rather
 * than matching every route again.
 */
function matchedTemplate(ctx: AppContext): string | undefined {
  const matched = (ctx as unknown as { matched?: { path: string; methods: string[] }[] }).matched ?? [];
  const method = ctx.method.toUpperCase();
  for (let i = matched.length - 1; i >= 0; i--) {
    const layer = matched[i]!;
    if (layer.methods.length === 0 || layer.methods.includes(method)) return layer.path;
  }
  return undefined;
}

/**
 * The legacy REST API v2 on a tenant's host: HTTP Basic auth of a tenant user, usage counting,
 * then one generic handler per operation of each resource, plus the delegate and custom
 * template sub-resources.
 */
export function legacyRestRoutes(rt: Runtime, usage: LegacyUsageRecorder): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/v2' });

  // Counted before authentication, so failing integrations show up too (as user 0).
  router.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      // The route template (`/api/v2/crm/contacts/:id`), also when authentication stopped the
      // request before the route ran (the router runs nothing for a path no route matches, so
      // counts stay bounded; the fallback key is for a match this code does not foresee).
      usage.record(tenantOf(ctx).id, ctx.state.user?.id ?? null, `${ctx.method} ${matchedTemplate(ctx) ?? '(unknown path)'}`);
    }
  });
  // Credentials first, outside any transaction: a request that fails them never takes one.
  router.use(basicAuth(rt.knex, rt.passwords, rt.identities));
  // Each tenant's writes at its fair share of the process's intake while others write
  // (docs/reliability.md): after authentication, so nobody without a tenant's credentials can
  // spend its share; before the transaction, so a refused write reads and writes nothing.
  router.use(
    writeAdmission(
      new WriteAdmission({
        writesPerSecond: rt.config.admissionWritesPerSecond,
        activeWindowMs: rt.config.admissionActiveWindowMs,
        maxWaitMs: rt.config.admissionMaxWaitMs,
      }),
    ),
  );
  router.use(requestDb(rt));
  router.use(bodyErrors());

  // Each route names the permission it needs; it is checked before anything is read.
  const allow =
    (permission: string, handler: (ctx: AppContext, db: Knex) => Promise<unknown>): AppMiddleware =>
    async (ctx) => {
      assertPermission(ctx.state.user, permission);
      ctx.body = await handler(ctx, dbOf(ctx));
    };

  for (const res of RESOURCES) {
    const [view, edit] = [`${res.permission}_VIEW`, `${res.permission}_EDIT`];
    for (const path of [res.path, ...(res.aliases ?? [])]) {
      const base = `/${path}`;
      if (res.operations.includes('list'))
        router.get(
          base,
          allow(view, (ctx, db) => res.list(db, ctx.query)),
        );
      if (res.operations.includes('get'))
        router.get(
          `${base}/:id`,
          allow(view, (ctx, db) => res.get(db, idParam(ctx))),
        );
      if (res.operations.includes('create'))
        router.post(
          base,
          allow(edit, (ctx, db) => res.create(db, ctx.request.body)),
        );
      if (res.operations.includes('update'))
        router.put(
          `${base}/:id`,
          allow(edit, (ctx, db) => res.update(db, idParam(ctx), ctx.request.body)),
        );
      if (res.operations.includes('delete'))
        router.delete(
          `${base}/:id`,
          allow(edit, (ctx, db) => res.remove(db, idParam(ctx))),
        );
    }
  }

  router.post(
    '/event/delegates/:id/name',
    allow('DELEGATE_EDIT', (ctx, db) => nameDelegatePlace(delegates, db, idParam(ctx), ctx.request.body)),
  );
  router.get(
    '/event/delegates/:id/scores',
    allow('DELEGATE_VIEW', (ctx, db) => delegateScores(db, idParam(ctx))),
  );
  router.post(
    '/event/delegates/:id/scores',
    allow('DELEGATE_EDIT', (ctx, db) => saveDelegateScores(db, idParam(ctx), ctx.request.body)),
  );
  // Orders finish in the worker: the answer says the order is taken, `orders:show` says how it went.
  router.post(
    '/orders',
    allow('OPPORTUNITY_EDIT', async (ctx, db) => {
      const user = ctx.state.user!;
      const key = parseIdempotencyKey(ctx.get('idempotency-key') || undefined);
      const placed = await placeOrder(
        db,
        { tenantId: tenantOf(ctx).id, userId: user.id, companyId: user.companyId },
        ctx.request.body,
        key,
      );
      if (placed.replayed) ctx.set('Idempotent-Replayed', 'true');
      return { msg: placed.replayed ? 'Order already received' : 'Order received', order_id: placed.orderId };
    }),
  );
  for (const path of [customTemplates.path, ...(customTemplates.aliases ?? [])]) {
    router.post(
      `/${path}/:id/mappings`,
      allow('COURSE_TEMPLATE_EDIT', async (ctx, db) => {
        const id = idParam(ctx);
        await addCustomTemplateMapping(db, id, ctx.request.body);
        return customTemplates.get(db, id);
      }),
    );
  }
  return router;
}

// The order body's JSON Schema comes from the same zod schema that checks requests.
const { $schema: _draft, ...ORDER_BODY_SCHEMA } = z.toJSONSchema(orderSchema, { io: 'input', unrepresentable: 'any' });

/** OpenAPI entries of the sub-resources mounted above (the generic operations are generated). */
export const EXTRA_OPENAPI_PATHS: Record<string, unknown> = {
  '/api/v2/orders': {
    post: {
      tags: ['orders'],
      deprecated: true,
      summary: 'Create an order; a worker then makes its registration and, when the tenant is set up for it, its invoice',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', maxLength: 255 },
          description: 'the same key and body answer the same order_id; the same key with another body is 422',
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ORDER_BODY_SCHEMA } } },
      responses: {
        '200': {
          description: 'Order received',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['msg', 'order_id'],
                additionalProperties: false,
                properties: { msg: { type: 'string' }, order_id: { type: 'integer' } },
              },
            },
          },
        },
        '400': { description: 'The body is not a valid order: details.fields names each field at fault; nothing is written' },
        '404': { description: 'contact_id (or company_id) names no record; nothing is written' },
        '422': { description: 'The Idempotency-Key was used for a different order' },
      },
    },
  },
  '/api/v2/event/delegates/{id}/name': {
    post: {
      tags: ['event'],
      deprecated: true,
      summary: 'Name one place of an unnamed delegate row',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { type: 'object', required: ['contact_id'], properties: { contact_id: { type: 'integer' } } } },
        },
      },
      responses: {
        '200': { description: 'The new named delegate (reduced event, contact with user_id)' },
        '400': { description: 'contact_id not supplied' },
        '404': { description: 'Delegate or contact does not exist' },
      },
    },
  },
  '/api/v2/event/delegates/{id}/scores': {
    get: {
      tags: ['event'],
      deprecated: true,
      summary: "A delegate's score entries",
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      responses: {
        '200': { description: 'Score entries', content: { 'application/json': { schema: { $ref: '#/components/schemas/ScoreEntries' } } } },
        '404': { description: 'Delegate does not exist' },
      },
    },
    post: {
      tags: ['event'],
      deprecated: true,
      summary: 'Set scores: keys are mapping ids, values strings',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', additionalProperties: { type: 'string' } } } },
      },
      responses: {
        '200': {
          description: 'Score entries after the update',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ScoreEntries' } } },
        },
        '400': { description: 'Unknown mapping or invalid value; nothing written' },
        '404': { description: 'Delegate does not exist' },
      },
    },
  },
  '/api/v2/system/custom_templates/{id}/mappings': {
    post: {
      tags: ['system'],
      deprecated: true,
      summary: 'Add a score mapping (label, type_id) to a custom template',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['label', 'type_id'],
              properties: { label: { type: 'string' }, type_id: { type: 'integer', enum: [1, 2, 3, 4] } },
            },
          },
        },
      },
      responses: {
        '200': { description: 'The custom template with its mappings' },
        '404': { description: 'Template does not exist, or the mapping could not be created' },
      },
    },
  },
};
