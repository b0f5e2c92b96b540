/**
 * The lifecycle states of published content (course templates and events), as the REST API stores
 * them, the GraphQL API enumerates them and WebLink filters on them: one list for every face.
 */
export const LIFECYCLE_STATES = ['draft', 'published', 'cancelled'] as const;
export type LifecycleStateName = (typeof LIFECYCLE_STATES)[number];
