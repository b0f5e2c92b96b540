/**
 * The webhook types: what a webhook can be told of. Each is a row here; a type fired by a change
 * also has a trigger in the tenant migrations (017_webhooks.ts `captureTriggers`, 018's `sessionCaptureTriggers`), and a manual
 * type is fired by `webhooks { trigger }` or the Control Panel. A test checks that every
 * change type has its trigger. Names are the ones real clients look types up by
 * (real-clients.md section 5.A); ids are `WebhookType:<key>` in base64.
 */
export interface WebhookType {
  /** snake_case key: the id is base64 of `WebhookType:<key>`. */
  key: string;
  name: string;
  /** The GraphQL type of the record a delivery is about (its `$objectid`). */
  entity: WebhookEntity;
  /** Fired by hand on one record, not by a change. */
  manual?: boolean;
}

export type WebhookEntity = 'Event' | 'CourseTemplate' | 'LearningPath' | 'Document' | 'Learner' | 'Opportunity' | 'Invoice' | 'Session';

/**
 * How `$objectid` spells a record of each entity: the global id, except events, which the
 * production service's receivers decode as `Course:<n>` (a WordPress receiver deletes the post of
 * any other prefix). Lectern's Core API reads that spelling as the event (kit/graphql/ids.ts).
 */
export const OBJECT_ID_PREFIX: Readonly<Record<WebhookEntity, string>> = {
  Event: 'Course',
  CourseTemplate: 'CourseTemplate',
  LearningPath: 'LearningPath',
  Document: 'Document',
  Learner: 'Learner',
  Opportunity: 'Opportunity',
  Invoice: 'Invoice',
  Session: 'Session',
};

export const WEBHOOK_TYPES: readonly WebhookType[] = [
  { key: 'event_created', name: 'Event Created', entity: 'Event' },
  { key: 'event_updated', name: 'Event Updated', entity: 'Event' },
  { key: 'event_cancelled', name: 'Event Cancelled', entity: 'Event' },
  { key: 'event_deleted', name: 'Event Deleted', entity: 'Event' },
  { key: 'course_template_created', name: 'Course Template Created', entity: 'CourseTemplate' },
  { key: 'course_template_updated', name: 'Course Template Updated', entity: 'CourseTemplate' },
  { key: 'course_template_deleted', name: 'Course Template Deleted', entity: 'CourseTemplate' },
  { key: 'learning_path_created', name: 'Learning Path Created', entity: 'LearningPath' },
  { key: 'learning_path_updated', name: 'Learning Path Updated', entity: 'LearningPath' },
  { key: 'learning_path_deleted', name: 'Learning Path Deleted', entity: 'LearningPath' },
  { key: 'document_updated', name: 'Document Updated', entity: 'Document' },
  { key: 'learner_created', name: 'Learner Created', entity: 'Learner' },
  { key: 'learner_cancelled', name: 'Learner Cancelled', entity: 'Learner' },
  { key: 'session_created', name: 'Session Created', entity: 'Session' },
  { key: 'session_updated', name: 'Session Updated', entity: 'Session' },
  { key: 'session_deleted', name: 'Session Deleted', entity: 'Session' },
  { key: 'order_completed', name: 'Order Completed', entity: 'Opportunity' },
  { key: 'invoice_created', name: 'Invoice Created', entity: 'Invoice' },
  { key: 'manual_event', name: 'Manual Event', entity: 'Event', manual: true },
  { key: 'manual_course_template', name: 'Manual Course Template', entity: 'CourseTemplate', manual: true },
];

const BY_KEY = new Map(WEBHOOK_TYPES.map((t) => [t.key, t]));

/** The type of a key; undefined for a key no longer (or never) in the catalogue. */
export function webhookType(key: string): WebhookType | undefined {
  return BY_KEY.get(key);
}

/** The `$objectid` a delivery about this record binds (see {@link OBJECT_ID_PREFIX}). */
export function objectIdOf(entity: WebhookEntity, recordId: number): string {
  return Buffer.from(`${OBJECT_ID_PREFIX[entity]}:${recordId}`, 'utf8').toString('base64');
}

/**
 * A webhook's global id, as the Core API answers it and as its deliveries' `metadata.webhook_id`
 * carries it (one spelling for both: a client maps deliveries to webhooks by it): `OutboundHook:<n>`,
 * as the production service spells them.
 */
export function webhookGlobalId(webhookId: number): string {
  return Buffer.from(`OutboundHook:${webhookId}`, 'utf8').toString('base64');
}

/** The text a client's global id (standard base64) spells; undefined for anything that is not one. */
export function decodedId(id: string): string | undefined {
  if (id.length > 200 || !/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return undefined;
  return Buffer.from(id, 'base64').toString('utf8');
}
