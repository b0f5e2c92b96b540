import test, { type ExecutionContext } from 'ava';
import { createServiceClient } from '../../src/modules/oauth/clients.service.js';
import { basic, PASSWORD } from '../helpers/rest.js';
import { request, type HttpResult } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * A body sent as something other than JSON to an API that reads JSON (`curl -d '{...}'` sends a
 * form; some clients send no Content-Type, or text/plain) is refused with 415 and a message that
 * names the header, in each API's error shape: REST v2 and `POST /portal/guest` with
 * `{"error": {...}}`, `/graphql` and `/weblink/graphql` with `{"errors": [...]}`. Before, REST
 * answered 404 `could_not_create` naming the whole body as an unknown field and GraphQL "Must
 * provide query string". What real clients send keeps working: JSON with a charset, `+json`
 * types, a POST with no body and the document in `?query=`, a GET with a JSON body, and forms
 * where forms are the format (the OAuth token endpoint).
 */
let f: GraphQLFixture;
const JSON_BODY = '{"first_name": "Ada", "last_name": "Lovelace-CT"}';
const QUERY_BODY = '{"query": "{ hello }"}';
/** Bodies that are not JSON by their Content-Type ('' sends none), with what the message calls them. */
const NOT_JSON: [string, string][] = [
  ['', 'no Content-Type'],
  ['text/plain', 'text/plain'],
  ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ['application/graphql', 'application/graphql'],
];
const headersFor = (type: string): Record<string, string> => (type ? { 'content-type': type } : {});

test.serial.before(async () => {
  f = await graphqlFixture('ctp');
});
test.after.always(async () => f?.close());

/** A REST v2 call on the fixture's tenant with raw body and headers as given (no Content-Type unless given). */
const rest = (method: string, path: string, rawBody: string | undefined, headers: Record<string, string> = {}) =>
  request(f.port, {
    method,
    path: `/api/v2/${path}`,
    host: `${f.tenant.slug}.localhost`,
    headers: { authorization: basic(f.email, PASSWORD), accept: 'application/json', ...headers },
    ...(rawBody !== undefined ? { rawBody } : {}),
  });

const core = (rawBody: string | undefined, headers: Record<string, string> = {}, opts: { method?: string; path?: string } = {}) =>
  request(f.port, {
    method: opts.method ?? 'POST',
    path: opts.path ?? '/graphql',
    headers: { authorization: `Bearer ${f.admin}`, ...headers },
    ...(rawBody !== undefined ? { rawBody } : {}),
  });

function refusedRest(t: ExecutionContext, res: HttpResult, named: string) {
  t.is(res.status, 415, res.text);
  t.is(res.json?.error?.code, 'unsupported_media_type', res.text);
  t.regex(res.json.error.message, /Content-Type: application\/json/);
  t.true((res.json.error.message as string).includes(named), res.json.error.message);
}

function refusedGraphQL(t: ExecutionContext, res: HttpResult, named: string) {
  t.is(res.status, 415, res.text);
  t.regex(String(res.headers['content-type']), /^application\/json/);
  t.is(res.json?.errors?.length, 1, res.text);
  t.is(res.json.errors[0].extensions.code, 'UNSUPPORTED_MEDIA_TYPE');
  t.regex(res.json.errors[0].message, /Content-Type: application\/json/);
  t.true((res.json.errors[0].message as string).includes(named), res.json.errors[0].message);
  t.false('data' in res.json);
}

test.serial('when a REST POST or PUT body is not sent as JSON, then 415 names the header and nothing is written', async (t) => {
  const created = await rest('POST', 'crm/contacts', JSON_BODY, { 'content-type': 'application/json' });
  t.is(created.status, 200, created.text);
  for (const [type, named] of NOT_JSON) {
    refusedRest(t, await rest('POST', 'crm/contacts', JSON_BODY, headersFor(type)), named);
    refusedRest(t, await rest('PUT', `crm/contacts/${created.json.id}`, '{"first_name": "Changed"}', headersFor(type)), named);
  }
  const list = await rest('GET', 'crm/contacts?last_name=Lovelace-CT', undefined);
  t.deepEqual(
    list.json.map((c: { first_name: string }) => c.first_name),
    ['Ada'],
  );
});

test.serial('when a REST body is refused for its media type, then credentials are still checked first (401)', async (t) => {
  const res = await request(f.port, {
    method: 'POST',
    path: '/api/v2/crm/contacts',
    host: `${f.tenant.slug}.localhost`,
    headers: { authorization: basic(f.email, 'wrong-password-1') },
    rawBody: JSON_BODY,
  });
  t.is(res.status, 401, res.text);
});

test.serial(
  'when a REST body is JSON by any JSON media type with any charset, or there is no body, then it is read as before',
  async (t) => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/vnd.api+json']) {
      const res = await rest('POST', 'crm/contacts', '{"first_name": "Grace", "last_name": "Hopper-CT"}', { 'content-type': type });
      t.is(res.status, 200, `${type}: ${res.text}`);
    }
    // No body at all (Content-Length: 0), whatever the type: the resource's own answer, not 415.
    for (const headers of [{}, { 'content-type': 'text/plain' }] as Record<string, string>[]) {
      const empty = await rest('POST', 'crm/contacts', '', headers);
      t.is(empty.status, 404, empty.text);
      t.is(empty.json.error.code, 'could_not_create');
    }
    // A GET's or DELETE's body is never read, so never refused.
    const get = await rest('GET', 'crm/contacts?last_name=Hopper-CT', 'ignored', { 'content-type': 'text/plain' });
    t.is(get.status, 200, get.text);
    t.is(get.json.length, 3);
  },
);

test.serial('when a /graphql body is not sent as JSON, then 415 in GraphQL errors names the header', async (t) => {
  for (const [type, named] of NOT_JSON) {
    refusedGraphQL(t, await core(QUERY_BODY, headersFor(type)), named);
    refusedGraphQL(t, await core(QUERY_BODY, { ...headersFor(type), accept: 'application/graphql-response+json' }), named);
  }
  // A GET with a body and no document in the URL: the body is where the document was to be.
  refusedGraphQL(t, await core(QUERY_BODY, { 'content-type': 'text/plain' }, { method: 'GET' }), 'text/plain');
  // Without a token it is 401 first, whatever the body.
  const anonymous = await request(f.port, { method: 'POST', path: '/graphql', rawBody: QUERY_BODY });
  t.is(anonymous.status, 401, anonymous.text);
});

test.serial('when /graphql is called the ways real clients call it, then it answers as before', async (t) => {
  const hello = (res: HttpResult) => {
    t.is(res.status, 200, res.text);
    t.is(typeof res.json?.data?.hello, 'string', res.text);
  };
  hello(await core(QUERY_BODY, { 'content-type': 'application/json' }));
  hello(await core(QUERY_BODY, { 'content-type': 'application/json; charset=utf-8' }));
  hello(await core(QUERY_BODY, { 'content-type': 'application/graphql+json' }));
  hello(await core(QUERY_BODY, { 'content-type': 'application/json', accept: 'application/graphql-response+json' }));
  // n8n: a POST with no body and the document in the URL, with or without a Content-Type.
  const inUrl = `/graphql?${new URLSearchParams({ query: '{ hello }' })}`;
  hello(await core(undefined, {}, { path: inUrl }));
  hello(await core('', { 'content-type': 'application/x-www-form-urlencoded' }, { path: inUrl }));
  // A body beside a document in the URL is not read, so its type does not matter.
  hello(await core('staff=1', { 'content-type': 'application/x-www-form-urlencoded' }, { path: inUrl }));
  // n8n's default: a GET with a JSON body; and a GET with the document in the URL.
  hello(await core(QUERY_BODY, { 'content-type': 'application/json' }, { method: 'GET' }));
  hello(await core(undefined, {}, { method: 'GET', path: inUrl }));
});

test.serial('when a /weblink/graphql body is not sent as JSON, then 415 in GraphQL errors; JSON is answered', async (t) => {
  const weblink = (rawBody: string, headers: Record<string, string>) =>
    request(f.port, { method: 'POST', path: '/weblink/graphql', host: `${f.tenant.slug}.localhost`, headers, rawBody });
  const body = '{"query": "{ __typename }"}';
  for (const [type, named] of NOT_JSON) refusedGraphQL(t, await weblink(body, headersFor(type)), named);
  const ok = await weblink(body, { 'content-type': 'application/json', accept: 'application/json, text/plain, */*' });
  t.is(ok.status, 200, ok.text);
  t.deepEqual(ok.json, { data: { __typename: 'Query' } });
});

test.serial('when POST /portal/guest is not sent as JSON, then 415 names the header; as JSON it reaches the domain', async (t) => {
  const guest = (rawBody: string, headers: Record<string, string>) =>
    request(f.port, { method: 'POST', path: '/portal/guest', host: 'localhost', headers, rawBody });
  for (const [type, named] of NOT_JSON) refusedRest(t, await guest('{"domain": "nowhere.ctp.test"}', headersFor(type)), named);
  refusedRest(t, await guest('domain=nowhere.ctp.test', { 'content-type': 'application/x-www-form-urlencoded' }), 'form');
  const json = await guest('{"domain": "nowhere.ctp.test"}', {
    'content-type': 'application/json',
    accept: 'application/json, text/plain, */*',
  });
  t.is(json.status, 404, json.text);
  t.is(json.json.error.code, 'portal_not_found');
});

test.serial('when the OAuth token endpoint gets a form (RFC 6749), then it is accepted as before', async (t) => {
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'ctp form', serviceUser: f.email });
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret });
  const res = await request(f.port, {
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    rawBody: form.toString(),
  });
  t.is(res.status, 200, res.text);
  t.is(res.json.token_type, 'Bearer');
});
