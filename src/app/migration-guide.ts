import { REST_SUNSET } from '../kit/http/deprecation.js';

/** Where each legacy REST endpoint's job is done in the Core GraphQL API (`POST /graphql`). */
export const MIGRATION_MAP: { rest: string; graphql: string }[] = [
  { rest: 'GET /api/v2/crm/marketing_activities[/:id]', graphql: 'query marketingActivities(filters: [{field: id, operation: eq, value: "…"}])' },
  { rest: 'POST|PUT|DELETE /api/v2/crm/marketing_activities', graphql: 'mutation marketingActivity { create | update | delete }' },
  { rest: 'GET|POST|PUT|DELETE /api/v2/crm/campaigns', graphql: 'query campaigns; mutation campaign { create | update | delete }' },
  { rest: 'GET|POST|PUT|DELETE /api/v2/crm/contacts', graphql: 'query contacts; mutation contact { create | update | delete }' },
  { rest: 'GET|POST|PUT|DELETE /api/v2/crm/companies', graphql: 'query organisations; mutation organisation { create | update | delete }' },
  { rest: 'GET|POST|PUT|DELETE /api/v2/event/categories', graphql: 'query categories; mutation category { create | update | delete }' },
  { rest: 'GET /api/v2/event/public_events[/:id]', graphql: 'query events(filters: …); node(id:)' },
  { rest: 'POST|PUT /api/v2/event/public_events', graphql: 'mutation event { createClassroom | update }' },
  { rest: 'GET|POST|PUT|DELETE /api/v2/event/event_templates', graphql: 'query courseTemplates; mutation courseTemplate { create | update }' },
  { rest: 'GET /api/v2/event/delegates[/:id]', graphql: 'query learners(filters: [{field: eventId, …}])' },
  { rest: 'POST|DELETE /api/v2/event/delegates', graphql: 'mutation learner { create | cancel }' },
  { rest: 'POST /api/v2/event/delegates/:id/name', graphql: 'mutation learner { name(learnerId, contactId) }' },
  { rest: 'GET|POST /api/v2/event/delegates/:id/scores', graphql: 'Learner.scores; mutation learner { setScores }' },
  { rest: 'GET /api/v2/system/custom_templates[/:id]', graphql: 'CourseTemplate.scoreMappings' },
  { rest: 'POST /api/v2/orders', graphql: 'mutation opportunity { create }; query opportunities, invoices' },
];

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function migrationGuideHtml(): string {
  const rows = MIGRATION_MAP.map((m) => `<tr><td><code>${esc(m.rest)}</code></td><td><code>${esc(m.graphql)}</code></td></tr>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lectern: migrating from REST v2 to GraphQL</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td{padding:.3rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}</style></head>
<body><h1>Migrating from the legacy REST API v2 to GraphQL</h1>
<p>The REST API under <code>/api/v2/</code> is deprecated and retired on ${esc(REST_SUNSET.toUTCString())}. Use the Core GraphQL API at
<code>POST /graphql</code> with an OAuth 2.0 bearer token (<code>/oauth/authorize</code>, <code>/oauth/token</code>).</p>
<table><thead><tr><th>REST v2</th><th>GraphQL</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}
