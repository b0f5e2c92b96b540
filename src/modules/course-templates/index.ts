/**
 * The public entry of the course-templates module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export {
  COURSE_TEMPLATE_ROWS,
  appendScoreMapping,
  CourseTemplate,
  courseTemplatesByIds,
  courseTemplateTitle,
  deliveryLocaleIds,
  findCourseTemplate,
  inheritedTemplate,
  type CourseTemplateRow,
} from './course-templates.data.js';
export { CODE_MAX_LENGTH, SESSION_LAYOUTS } from './course-templates.rules.js';
export { MAPPING_TYPES, mappingRecord, mappingsOf, type MappingRow } from './score-mappings.js';
