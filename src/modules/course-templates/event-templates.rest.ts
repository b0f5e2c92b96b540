import { defineResource, restFieldErrors } from '../../kit/rest/resource.js';
import { CATEGORY_ROWS } from '../categories/index.js';
import { CourseTemplate } from './course-templates.data.js';
import { CODE_MAX_LENGTH, COURSE_TEMPLATE_TEXTS, courseTemplateProblems, type CourseTemplateFields } from './course-templates.rules.js';

/**
 * The REST face of a course template ("event template"): the same rows as the GraphQL
 * CourseTemplate, checked by the same rule (courseTemplateProblems). `description` is
 * courseText1, `introduction` is courseText2; they and the other course texts are rich text,
 * sanitised on write here as in GraphQL.
 */

/** REST field names of the rule's fields where they differ. */
const REST_NAMES = {
  courseText1: 'description',
  courseText2: 'introduction',
  relatedCoursesText: 'related_courses_text',
  lmsSummary: 'lms_summary',
  lifecycleState: 'lifecycle_state',
};

export const eventTemplates = defineResource({
  name: 'Event template',
  path: 'event/event_templates',
  table: CourseTemplate.tableName,
  permission: 'COURSE_TEMPLATE',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    code: { type: 'string', column: 'code', maxLength: CODE_MAX_LENGTH },
    title: { type: 'string', column: 'title', required: true, nullable: false, maxLength: COURSE_TEMPLATE_TEXTS.title.maxLength },
    description: { type: 'string', column: 'course_text1', maxLength: COURSE_TEMPLATE_TEXTS.courseText1.maxLength, richText: true },
    introduction: { type: 'string', column: 'course_text2', maxLength: COURSE_TEMPLATE_TEXTS.courseText2.maxLength, richText: true },
    related_courses_text: {
      type: 'string',
      column: 'related_courses_text',
      maxLength: COURSE_TEMPLATE_TEXTS.relatedCoursesText.maxLength,
      richText: true,
    },
    lms_summary: { type: 'string', column: 'lms_summary', maxLength: COURSE_TEMPLATE_TEXTS.lmsSummary.maxLength, richText: true },
    category_id: { type: 'integer', column: 'category_id', references: CATEGORY_ROWS },
    lifecycle_state: { type: 'string', column: 'lifecycle_state', nullable: false },
  },
  async check(_db, values, existing): Promise<Record<string, string>> {
    const given = (column: string) => values[column] as string | null | undefined;
    const fields: CourseTemplateFields = {
      code: given('code'),
      title: given('title'),
      courseText1: given('course_text1'),
      courseText2: given('course_text2'),
      relatedCoursesText: given('related_courses_text'),
      lmsSummary: given('lms_summary'),
      lifecycleState: given('lifecycle_state'),
    };
    return restFieldErrors(courseTemplateProblems(fields, existing ? 'update' : 'create'), REST_NAMES);
  },
});
