import { defineResource } from '../../kit/rest/resource.js';

/**
 * The REST face of a course template ("event template"): the same rows as the GraphQL
 * CourseTemplate. `description` is courseText1, `introduction` is courseText2; they and the
 * other course texts are rich text, sanitised on write here as in GraphQL.
 */
export const eventTemplates = defineResource({
  name: 'Event template',
  path: 'event/event_templates',
  table: 'course_templates',
  permission: 'COURSE_TEMPLATE',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    code: { type: 'string', column: 'code', maxLength: 64 },
    title: { type: 'string', column: 'title', required: true, nullable: false, maxLength: 255 },
    description: { type: 'string', column: 'course_text1', maxLength: 100000, richText: true },
    introduction: { type: 'string', column: 'course_text2', maxLength: 100000, richText: true },
    related_courses_text: { type: 'string', column: 'related_courses_text', maxLength: 100000, richText: true },
    lms_summary: { type: 'string', column: 'lms_summary', maxLength: 100000, richText: true },
    category_id: { type: 'integer', column: 'category_id', references: { table: 'categories', label: 'category' } },
    lifecycle_state: { type: 'string', column: 'lifecycle_state', nullable: false },
  },
  async check(_db, values): Promise<Record<string, string>> {
    const state = values.lifecycle_state;
    return state === undefined || ['draft', 'published', 'cancelled'].includes(state as string)
      ? {}
      : { lifecycle_state: 'must be one of draft, published, cancelled' };
  },
});
