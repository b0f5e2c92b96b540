import { Kind, parse, type FieldNode, type SelectionNode } from 'graphql';
import { REST_DEPRECATED_AT, REST_SUNSET } from '../kit/http/deprecation.js';

/**
 * `GET /api/v2/migration`: where each legacy REST endpoint's job is done in the Core GraphQL API
 * (`POST /graphql`). Each entry gives GraphQL documents that run against the Core schema as it
 * is (test/http/migration-guide.test.ts validates every one against the built schema), or says
 * plainly that nothing does the job yet. What `graphql` names is read from those documents, so
 * the guide names no operation the API does not have.
 */
export interface MigrationEntry {
  /** The REST endpoints: methods and path (`[/:id]`: with or without an id). */
  rest: string;
  /** The operations that do it (`query events`, `mutation courseTemplate.update`), or `None yet: …`. */
  graphql: string;
  /** Documents to send to `POST /graphql` (`"<Event id>"`: an id to fill in); none when nothing does it yet. */
  operations: string[];
  /** What the operations leave to REST, or why there are none. */
  note?: string;
}

const ENTRIES: Omit<MigrationEntry, 'graphql'>[] = [
  {
    rest: 'GET|POST|PUT|DELETE /api/v2/crm/marketing_activities[/:id]',
    operations: [],
    note: 'Core GraphQL has no marketing activities: keep using REST for them.',
  },
  {
    rest: 'GET|POST|PUT|DELETE /api/v2/crm/campaigns[/:id]',
    operations: [],
    note: 'Core GraphQL has no campaigns: keep using REST for them.',
  },
  {
    rest: 'GET /api/v2/crm/contacts[/:id]',
    operations: [
      'query { contacts(filters: [{field: emailAddress, operation: eq, value: "ada@example.com"}], first: 50) { edges { node { id legacyId firstName lastName emailAddress isInstructor isStaff account { id legacyId name } } } pageInfo { hasNextPage endCursor } } }',
      'query { node(id: "<Contact id>") { ... on Contact { id legacyId firstName lastName emailAddress } } }',
    ],
  },
  {
    rest: 'POST|PUT|DELETE /api/v2/crm/contacts[/:id]',
    operations: [],
    note: 'Core GraphQL cannot write contacts: keep using REST for them.',
  },
  {
    rest: 'GET /api/v2/crm/companies[/:id]',
    operations: [
      'query { accounts(filters: [{field: name, operation: like, value: "%Ltd%"}], first: 50) { edges { node { id legacyId name emailAddress website isPartner postalAddresses { usage lines town postcode country { code } } } } pageInfo { hasNextPage endCursor } } }',
    ],
    note: 'REST companies are GraphQL accounts (Account.legacyId is the REST id).',
  },
  {
    rest: 'POST|PUT /api/v2/crm/companies[/:id]',
    operations: [
      'mutation { account { create(input: {name: "Acme Ltd", emailAddress: "office@acme.example"}) { account { id legacyId } errors { label message value } } } }',
      'mutation { account { update(input: {accountId: "<Account id>", website: "https://acme.example", postalAddresses: [{usage: default, address: {lines: ["1 High Street"], town: "London", postcode: "EC1A 1BB", countryId: "Q291bnRyeTpHQg=="}}]}) { account { id } errors { label message value } } } }',
    ],
  },
  {
    rest: 'DELETE /api/v2/crm/companies/:id',
    operations: [
      'mutation { account { merge(input: {fromAccount: "<Account id>", toAccount: "<Account id>"}) { account { id name } errors { label message value } } } }',
    ],
    note: 'GraphQL does not delete accounts: merge a duplicate into the account that stays (its contacts, orders and invoices move with it).',
  },
  {
    rest: 'GET /api/v2/event/categories[/:id]',
    operations: [
      'query { learningCategories(filters: [{field: parentCategory, operation: isnull}], order: {field: name}, first: 50) { edges { node { id legacyId name description parentCategory { id name } } } pageInfo { hasNextPage endCursor } } }',
      'query { node(id: "<LearningCategory id>") { ... on LearningCategory { id legacyId name description } } }',
    ],
    note: 'REST event categories are GraphQL learning categories.',
  },
  {
    rest: 'POST|PUT|DELETE /api/v2/event/categories[/:id]',
    operations: [],
    note: 'Core GraphQL cannot write learning categories: keep using REST for them.',
  },
  {
    rest: 'GET /api/v2/event/public_events[/:id]',
    operations: [
      'query { events(filters: [{field: courseTemplate, operation: eq, value: "<CourseTemplate id>"}], order: {field: code, direction: asc}, first: 50) { edges { node { id legacyId code title lifecycleState courseTemplate { id title } } } pageInfo { hasNextPage endCursor } } }',
      'query { node(id: "<Event id>") { ... on Event { id legacyId code title lifecycleState } } }',
    ],
  },
  {
    rest: 'POST /api/v2/event/public_events',
    operations: [
      'mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { id legacyId title } errors { label message value } } } }',
    ],
  },
  {
    rest: 'PUT /api/v2/event/public_events/:id',
    operations: [
      'mutation ($id: ID!, $input: EventUpdateInput!) { event { update(eventId: $id, input: $input) { event { id title lifecycleState } errors { label message value } } } }',
    ],
  },
  {
    rest: 'DELETE /api/v2/event/public_events/:id',
    operations: ['mutation { event { delete(input: {eventIds: ["<Event id>"]}) { eventIds errors { label message value } } } }'],
    note: 'Up to 100 events at once, all or none; an event delegates or orders still hold is refused, as in REST.',
  },
  {
    rest: 'GET /api/v2/event/event_templates[/:id]',
    operations: [
      'query { courseTemplates(filters: [{field: code, operation: eq, value: "<code>"}], order: {field: title}, first: 50) { edges { node { id legacyId code title lifecycleState } } pageInfo { hasNextPage endCursor } } }',
      'query { courseTemplate(id: "<CourseTemplate id>") { id legacyId code title lifecycleState } }',
    ],
  },
  {
    rest: 'POST /api/v2/event/event_templates',
    operations: [
      'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id legacyId } errors { label message value } } } }',
    ],
  },
  {
    rest: 'PUT /api/v2/event/event_templates/:id',
    operations: [
      'mutation ($id: ID!, $input: CourseTemplateUpdateInput!) { courseTemplate { update(courseTemplateId: $id, input: $input) { courseTemplate { id title } errors { label message value } } } }',
    ],
  },
  {
    rest: 'DELETE /api/v2/event/event_templates/:id',
    operations: [
      'mutation { courseTemplate { update(courseTemplateId: "<CourseTemplate id>", input: {lifecycleState: cancelled}) { courseTemplate { id lifecycleState } errors { label message value } } } }',
    ],
    note: 'GraphQL does not delete course templates: cancel one instead.',
  },
  {
    rest: 'GET /api/v2/event/delegates[/:id]',
    operations: [
      'query { learners(filters: [{field: eventId, operation: eq, value: "<Event id>"}, {field: lifecycleState, operation: eq, value: "active"}], first: 50) { edges { node { id legacyId lifecycleState contact { id emailAddress } event { id title } } } pageInfo { hasNextPage endCursor } } }',
    ],
    note: 'GraphQL learners are the named delegates; places bought without names are on their order (opportunities { registration { delegates } }).',
  },
  {
    rest: 'POST /api/v2/event/delegates',
    operations: [
      'mutation { event { registerContacts(eventId: "<Event id>", input: {contacts: ["<Contact id>"]}) { event { id bookedPlaces remainingPlaces } errors { label message value } } } }',
    ],
    note: 'Unlike REST (which never refuses for capacity, as the contract says), registerContacts holds the event to its places.',
  },
  {
    rest: 'DELETE /api/v2/event/delegates/:id',
    operations: [],
    note: 'Core GraphQL cannot cancel or remove a learner yet: keep using REST for it (learner { reactivate } brings a cancelled one back).',
  },
  {
    rest: 'POST /api/v2/event/delegates/:id/name',
    operations: [],
    note: 'Core GraphQL cannot name a delegate place: keep using REST for it.',
  },
  { rest: 'GET|POST /api/v2/event/delegates/:id/scores', operations: [], note: 'Core GraphQL has no scores: keep using REST for them.' },
  {
    rest: 'GET /api/v2/system/custom_templates[/:id]; POST /api/v2/system/custom_templates/:id/mappings',
    operations: [],
    note: 'Core GraphQL has no score templates or mappings: keep using REST for them.',
  },
  {
    rest: 'POST /api/v2/orders',
    operations: [
      'query { opportunities(filters: [{field: id, operation: eq, value: "<Opportunity id>"}]) { edges { node { id legacyId state processingStatus failureReason invoice { id legacyId } } } } }',
      'mutation { opportunity { release(opportunityId: "<Opportunity id>") { opportunity { id state processingStatus } errors { label message value } } } }',
    ],
    note: "No mutation places an order yet: place it with REST (order_id is the opportunity's legacyId), then follow it, and release one the manual workflow holds, in GraphQL.",
  },
];

/** What a document runs: `query <root field>` or `mutation <namespace>.<operation>`, for each of its operations. */
function operationNames(document: string): string[] {
  const fields = (selections: readonly SelectionNode[]) => selections.filter((s): s is FieldNode => s.kind === Kind.FIELD);
  return parse(document).definitions.flatMap((d) => {
    if (d.kind !== Kind.OPERATION_DEFINITION) return [];
    return fields(d.selectionSet.selections).flatMap((f) =>
      d.operation === 'mutation' && f.selectionSet
        ? fields(f.selectionSet.selections).map((op) => `mutation ${f.name.value}.${op.name.value}`)
        : [`${d.operation} ${f.name.value}`],
    );
  });
}

/** Every legacy REST endpoint and what replaces it, as `GET /api/v2/migration` lists it (JSON) and shows it (HTML). */
export const MIGRATION_MAP: MigrationEntry[] = ENTRIES.map((e) => ({
  rest: e.rest,
  graphql: e.operations.length
    ? [...new Set(e.operations.flatMap(operationNames))].join('; ')
    : `None yet: ${e.note ?? 'no GraphQL operation does this.'}`,
  operations: e.operations,
  ...(e.note && e.operations.length ? { note: e.note } : {}),
}));

/** A date as the page writes it: `12 May 2026`. */
const day = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The guide as a page, for people (`now`: whether the sunset has passed is said as of then). */
export function migrationGuideHtml(now = new Date()): string {
  const rows = MIGRATION_MAP.map((m) => {
    const what = m.operations.length
      ? `<code>${esc(m.graphql)}</code>${m.note ? `<p>${esc(m.note)}</p>` : ''}${m.operations.map((o) => `<pre><code>${esc(o)}</code></pre>`).join('')}`
      : `<strong>${esc(m.graphql)}</strong>`;
    return `<tr><td><code>${esc(m.rest)}</code></td><td>${what}</td></tr>`;
  }).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lectern: migrating from REST v2 to GraphQL</title>
<style>body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}td{padding:.3rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}pre{white-space:pre-wrap;background:#f6f6f6;padding:.4rem}</style></head>
<body><h1>Migrating from the legacy REST API v2 to GraphQL</h1>
<p>The REST API under <code>/api/v2/</code> is deprecated: every response says so in its <code>Deprecation</code> header
(since ${esc(day(REST_DEPRECATED_AT))}) and names its sunset in its <code>Sunset</code> header: ${esc(day(REST_SUNSET))}.
The sunset is the date from which the API may stop answering${now >= REST_SUNSET ? ' (it has passed: that may be at any time now)' : ''};
the date itself switches nothing off. The API answers as before until the operator of this Lectern turns it off
(<code>LEGACY_REST_API=off</code>). Once it is off, every call under <code>/api/v2/</code>
answers <code>410 Gone</code> (error <code>api_retired</code>) naming the GraphQL address; this guide and
<code>/api/v2/openapi.json</code> are still served.</p>
<p>Use the Core GraphQL API at <code>POST /graphql</code> with an OAuth 2.0 bearer token (<code>/oauth/authorize</code>,
<code>/oauth/token</code>).</p>
<p>GraphQL ids are global ids: <code>"&lt;Event id&gt;"</code> stands for the base64 of <code>Event:&lt;REST id&gt;</code> (REST's
<code>id</code> is GraphQL's <code>legacyId</code>). Where GraphQL has nothing for an endpoint yet, the guide says so.</p>
<table><thead><tr><th>REST v2</th><th>GraphQL</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}
