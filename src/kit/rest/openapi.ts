import type { FieldDef } from './fields.js';
import { MAX_LIMIT } from './filters.js';
import type { Resource } from './resource.js';

/**
 * OpenAPI 3.1 document of the legacy REST API, generated from the same resource definitions that
 * serve requests, so the two cannot drift apart. Schemas are JSON Schema 2020-12.
 */
const JSON_TYPE: Record<FieldDef['type'], Record<string, unknown>> = {
  integer: { type: 'integer' },
  number: { type: 'number' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  time: { type: 'string', pattern: '^\\d{2}:\\d{2}(:\\d{2})?$' },
  datetime: { type: 'string', description: 'ISO 8601 date-time without zone' },
  array: { type: 'array' },
  object: { type: 'object' },
};

function schemaOf(f: FieldDef): Record<string, unknown> {
  const base: Record<string, unknown> = {
    ...JSON_TYPE[f.type],
    ...(f.description ? { description: f.description } : {}),
    ...(f.maxLength ? { maxLength: f.maxLength } : {}),
    ...(f.min !== undefined ? { minimum: f.min } : {}),
    ...(f.max !== undefined ? { maximum: f.max } : {}),
  };
  const t = base.type as string;
  if (f.nullable === false) return f.enum ? { ...base, enum: [...f.enum] } : base;
  return { ...base, type: [t, 'null'], ...(f.enum ? { enum: [...f.enum, null] } : {}) };
}

const schemaName = (r: Resource) => r.name.replace(/(^|\s)(\w)/g, (_, _s, c: string) => c.toUpperCase());

export function openApiDocument(resources: readonly Resource[], extraPaths: Record<string, unknown>): Record<string, unknown> {
  const schemas: Record<string, unknown> = {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' }, requestId: { type: 'string' } },
        },
      },
    },
  };
  schemas.ScoreEntries = {
    type: 'array',
    items: {
      type: 'object',
      required: ['mapping', 'value'],
      properties: {
        mapping: {
          type: 'object',
          required: ['label', 'id', 'type_id'],
          properties: { label: { type: 'string' }, id: { type: 'integer' }, type_id: { type: 'integer' } },
        },
        value: { type: 'string' },
      },
    },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponse = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
  const common = {
    '401': errorResponse('Missing or wrong credentials of a user of this instance'),
    '403': errorResponse("The user's role lacks the permission the operation needs (<ENTITY>_VIEW to read, <ENTITY>_EDIT to write)"),
  };

  for (const r of resources) {
    const name = schemaName(r);
    const readable = Object.entries(r.fields).filter(([, f]) => f.readable);
    const writable = Object.entries(r.fields).filter(([, f]) => f.writable && f.column);
    schemas[name] = {
      type: 'object',
      // num_places is only on unnamed delegate rows, so it is the one optional output field.
      required: readable.map(([n]) => n).filter((n) => n !== 'num_places'),
      properties: Object.fromEntries(readable.map(([n, f]) => [n, schemaOf(f)])),
      // Records have exactly the fields listed: a client can rely on the shape.
      additionalProperties: false,
    };
    const input = (create: boolean) => ({
      type: 'object',
      additionalProperties: false,
      ...(create ? { required: writable.filter(([, f]) => f.required).map(([n]) => n) } : {}),
      properties: Object.fromEntries(writable.map(([n, f]) => [n, schemaOf(f)])),
    });
    const ok = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
    const ref = { $ref: `#/components/schemas/${name}` };
    const filters = Object.entries(r.fields)
      .filter(([, f]) => f.filterable)
      .map(([n, f]) => ({
        name: n,
        in: 'query',
        required: false,
        schema: JSON_TYPE[f.type],
        description: `${n}=value or ${n}__{eq,ne,lt,lte,gt,gte,in,notin,like}=value`,
      }));
    const list = [
      ...filters,
      { name: '_order', in: 'query', required: false, schema: { type: 'string' }, description: 'field1,-field2' },
      { name: '_limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 100 } },
    ];
    const collection: Record<string, unknown> = {};
    const item: Record<string, unknown> = {};
    const tag = [r.path.split('/')[0]];
    const deprecated = true;
    if (r.operations.includes('list'))
      collection.get = {
        tags: tag,
        deprecated,
        summary: `List ${r.name.toLowerCase()} records`,
        parameters: list,
        responses: {
          '200': ok({ type: 'array', items: ref }, 'Records'),
          '400': errorResponse('Unknown filter field or operator'),
          ...common,
        },
      };
    if (r.operations.includes('create'))
      collection.post = {
        tags: tag,
        deprecated,
        summary: `Create a ${r.name.toLowerCase()}`,
        requestBody: { required: true, content: { 'application/json': { schema: input(true) } } },
        responses: {
          '200': ok(ref, 'Created record'),
          '400': errorResponse('Body is not a JSON object'),
          '404': errorResponse('Could not create: details.fields names each field at fault'),
          '409': errorResponse('A record the body names was removed meanwhile: read it again, then retry'),
          '415': errorResponse('The body was not sent as JSON (Content-Type: application/json)'),
          ...common,
        },
      };
    if (r.operations.includes('get'))
      item.get = {
        tags: tag,
        deprecated,
        summary: `Read a ${r.name.toLowerCase()}`,
        parameters: [idParam],
        responses: { '200': ok(ref, 'Record'), '404': errorResponse('Not found'), ...common },
      };
    if (r.operations.includes('update'))
      item.put = {
        tags: tag,
        deprecated,
        summary: `Change fields of a ${r.name.toLowerCase()}`,
        parameters: [idParam],
        requestBody: { required: true, content: { 'application/json': { schema: input(false) } } },
        responses: {
          '200': ok(ref, 'Updated record'),
          '400': errorResponse('Invalid fields'),
          '404': errorResponse('Not found'),
          '409': errorResponse('A record the body names was removed meanwhile: read it again, then retry'),
          '415': errorResponse('The body was not sent as JSON (Content-Type: application/json)'),
          ...common,
        },
      };
    if (r.operations.includes('delete'))
      item.delete = {
        tags: tag,
        deprecated,
        summary: `Delete a ${r.name.toLowerCase()}`,
        parameters: [idParam],
        responses: {
          '200': ok(ref, 'The deleted record'),
          '404': errorResponse('Not found'),
          '409': errorResponse('Still in use'),
          ...common,
        },
      };
    for (const p of [r.path, ...(r.aliases ?? [])]) {
      if (Object.keys(collection).length) paths[`/api/v2/${p}`] = collection;
      if (Object.keys(item).length) paths[`/api/v2/${p}/{id}`] = item;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lectern legacy REST API v2',
      version: '2',
      description:
        'Deprecated since 12 May 2025; its sunset date, from when it may stop answering, is 12 May 2026. It answers until the operator turns it off (then every call is 410 Gone). Migrate to the GraphQL API (see /api/v2/migration).',
    },
    servers: [{ url: 'https://{tenant}.lectern.example.com', variables: { tenant: { default: 'demo' } } }],
    security: [{ basic: [] }],
    // The sub-resources share the common answers (401, 403) of every other operation.
    paths: {
      ...paths,
      ...Object.fromEntries(
        Object.entries(extraPaths).map(([path, ops]) => [
          path,
          Object.fromEntries(
            Object.entries(ops as Record<string, { responses: object }>).map(([m, op]) => [
              m,
              { ...op, responses: { ...op.responses, ...common } },
            ]),
          ),
        ]),
      ),
    },
    components: { schemas, securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
  };
}
