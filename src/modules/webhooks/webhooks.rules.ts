import { lineProblems, problem, type Problem } from '../../platform/problems.js';
import { hasControlCharacter } from '../../platform/util/text.js';
import type { WebhookColumns, WebhookState } from './webhooks.data.js';
import { decodedId, webhookType, type WebhookType } from './webhook-types.js';

/**
 * What a webhook may be: the checks of `webhooks { create update }` (real-clients.md section
 * 5.A), pure. The stored query's check against the schema is the service's (it needs the schema).
 */

/** A webhook as a client writes it: the input keys of `WebhookCreateInput` / `WebhookUpdateInput`. */
export interface WebhookInput {
  name?: string | null | undefined;
  webhookTypeId?: string | null | undefined;
  query?: string | null | undefined;
  url?: string | null | undefined;
  /** JSON text of an object: the envelope's `configuration`. */
  config?: string | null | undefined;
  notificationEmails?: readonly (string | null)[] | null | undefined;
  /** One address (the WordPress plugin's): added to the notification addresses. */
  emailAddress?: string | null | undefined;
  lifecycleState?: WebhookState | null | undefined;
}

export const NAME_MAX = 255;
export const URL_MAX = 2048;
export const CONFIG_MAX = 16_384;
export const MAX_NOTIFICATION_EMAILS = 20;
/**
 * Entries `notificationEmails` and `emailAddress` may give together before they are looked at:
 * room for repeats, while a request body's worth of addresses (a megabyte is ~90,000 of them) is
 * refused at once rather than checked one by one.
 */
const MAX_GIVEN_EMAILS = 5 * MAX_NOTIFICATION_EMAILS;
/**
 * Webhooks one tenant may have (active or not): each change is sent to each webhook of its type,
 * so the count bounds the deliveries one change makes.
 */
export const MAX_WEBHOOKS = 100;

/** The variable a stored query is run with, and the types it may be declared as. */
export const OBJECT_ID_VARIABLE = 'objectid';
export const OBJECT_ID_TYPES = ['ID!', 'String!'] as const;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** The key of a webhook type id (`WebhookType:<key>` in base64); undefined when it names none. */
export function webhookTypeOfId(id: string): WebhookType | undefined {
  const m = /^WebhookType:([a-z][a-z0-9_]{0,63})$/.exec(decodedId(id) ?? '');
  return m ? webhookType(m[1]!) : undefined;
}

/** `url`: an absolute http(s) address (where it may lead is checked when it is sent to). */
function urlProblems(url: string): Problem[] {
  if (url.length > URL_MAX) return [problem('url', url, `url must be at most ${URL_MAX} characters`)];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [problem('url', url, 'url must be an absolute address such as https://example.com/hooks/lectern')];
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return [problem('url', url, 'url must start with https:// or http://')];
  // The URL parser drops tabs and line breaks and encodes the rest: the address stored and shown
  // ("127.0.0.1<TAB>.evil.test") would not be the one sent to, and PostgreSQL text holds no NUL.
  if (/\s/.test(url) || hasControlCharacter(url))
    return [problem('url', url, 'url must not contain spaces or control characters: percent-encode them (%20)')];
  if (parsed.username || parsed.password)
    return [problem('url', url, 'url must not carry a user name or password: use config for secrets')];
  return [];
}

/** `config`: JSON text of an object, parsed; or why not (the parser's own words, as the production service answers). */
export function parseConfig(text: string): { config: Record<string, unknown> } | { problem: Problem } {
  if (text.length > CONFIG_MAX) return { problem: problem('config', text, `config must be at most ${CONFIG_MAX} characters of JSON`) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { problem: problem('config', text, `config must be a JSON object sent as a string: ${(err as Error).message}`) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: problem('config', text, 'config must be a JSON object sent as a string, e.g. "{\\"secret\\": \\"...\\"}"') };
  }
  if (holdsNul(parsed)) {
    return { problem: problem('config', text, 'config must not hold the character \\u0000 in a key or a value (it cannot be stored)') };
  }
  return { config: parsed as Record<string, unknown> };
}

/** Whether a parsed JSON value has a NUL in a string or a key: jsonb refuses it (a server error, else). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, v]) => key.includes('\u0000') || holdsNul(v));
  }
  return false;
}

/** The notification addresses: `notificationEmails` and `emailAddress` together, without repeats. */
function addresses(input: WebhookInput, current: readonly string[]): { emails?: string[]; problems: Problem[] } {
  if (input.notificationEmails === undefined && input.emailAddress === undefined) return { problems: [] };
  const given = [
    ...(input.notificationEmails === undefined ? current : (input.notificationEmails ?? [])),
    ...(input.emailAddress ? [input.emailAddress] : []),
  ];
  const tooMany = () => problem('notificationEmails', given.length, `at most ${MAX_NOTIFICATION_EMAILS} notification addresses`);
  // Counted before anything else: one problem for a flood, not one per address.
  if (given.length > MAX_GIVEN_EMAILS) return { problems: [tooMany()] };
  const problems: Problem[] = [];
  const emails: string[] = [];
  const seen = new Set<string>();
  given.forEach((raw, i) => {
    const email = (raw ?? '').trim();
    if (!EMAIL.test(email) || hasControlCharacter(email)) {
      const field = input.emailAddress && i === given.length - 1 ? 'emailAddress' : `notificationEmails[${i}]`;
      problems.push(problem(field, raw, `${field} must be an e-mail address`));
    } else if (!seen.has(email.toLowerCase())) {
      seen.add(email.toLowerCase());
      emails.push(email);
    }
  });
  if (emails.length > MAX_NOTIFICATION_EMAILS) problems.push(tooMany());
  return { emails, problems };
}

/**
 * The columns of a webhook write, or the problems of its input (each field's). On create, name,
 * webhookTypeId, url and query are required; on update, `webhookTypeId` is refused (a webhook's
 * type is fixed once created: its stored query was written for that type's records).
 */
export function webhookChange(
  input: WebhookInput,
  create: boolean,
  current: { notification_emails: readonly string[]; lifecycle_state?: string } = { notification_emails: [] },
): { columns: WebhookColumns; type?: WebhookType; problems: Problem[] } {
  const problems: Problem[] = [];
  const columns: WebhookColumns = {};
  const required = (field: keyof WebhookInput) => {
    if (create && (input[field] === undefined || input[field] === null || input[field] === ''))
      problems.push(problem(field, null, `${field} is required`));
  };
  (['name', 'webhookTypeId', 'url', 'query'] as const).forEach(required);
  if (!create && input.name === null) problems.push(problem('name', null, 'name cannot be cleared'));
  if (input.name != null) {
    const p = lineProblems('name', input.name, NAME_MAX, true);
    problems.push(...p);
    if (!p.length) columns.name = input.name.trim();
  }
  let type: WebhookType | undefined;
  if (!create && input.webhookTypeId !== undefined) {
    problems.push(
      problem('webhookTypeId', input.webhookTypeId, 'webhookTypeId cannot be changed: a webhook keeps the type it was created with'),
    );
  } else if (input.webhookTypeId != null) {
    type = webhookTypeOfId(input.webhookTypeId);
    if (!type) problems.push(problem('webhookTypeId', input.webhookTypeId, 'webhookTypeId names no webhook type (see webhookTypes)'));
    else columns.type_key = type.key;
  }
  for (const field of ['url', 'query'] as const) {
    if (!create && input[field] === null) problems.push(problem(field, null, `${field} cannot be cleared`));
  }
  if (input.url != null) {
    const p = urlProblems(input.url.trim());
    problems.push(...p);
    if (!p.length) columns.url = input.url.trim();
  }
  if (input.query != null) columns.query = input.query;
  if (input.config !== undefined) {
    if (input.config === null || input.config === '') columns.config = {};
    else {
      const parsed = parseConfig(input.config);
      if ('problem' in parsed) problems.push(parsed.problem);
      else columns.config = parsed.config;
    }
  }
  const emails = addresses(input, current.notification_emails);
  problems.push(...emails.problems);
  if (emails.emails) columns.notification_emails = emails.emails;
  if (input.lifecycleState === null) problems.push(problem('lifecycleState', null, 'lifecycleState must be active or disabled'));
  else if (input.lifecycleState !== undefined) {
    columns.lifecycle_state = input.lifecycleState;
    // Enabled again by hand: its failures so far no longer count toward disabling it. Activating
    // an active webhook changes nothing (clients send "activate" after every create or sync), so
    // it does not restart the clock of WEBHOOK_DISABLE_AFTER either.
    if (input.lifecycleState === 'active' && current.lifecycle_state !== 'active')
      Object.assign(columns, { disabled_reason: null, failing_since: null });
  }
  return { columns, ...(type ? { type } : {}), problems };
}

/**
 * The retry schedule after the first attempt (Svix's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h):
 * when the attempt after `attempts` attempts is due, or null when none is left.
 */
export function nextAttemptAt(attempts: number, scheduleMs: readonly number[], now: number): Date | null {
  const wait = scheduleMs[attempts - 1];
  return wait === undefined ? null : new Date(now + wait);
}
