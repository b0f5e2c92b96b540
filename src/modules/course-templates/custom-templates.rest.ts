import { defineResource } from '../../kit/rest/resource.js';
import { CourseTemplate, mappingsOf } from './course-templates.data.js';
import { mappingRecord } from './score-mappings.js';

/**
 * The custom template of an event template: the score mappings (id, label, field type) that
 * delegates of its events can be scored on. Its id is the event template's id.
 */
export const customTemplates = defineResource({
  name: 'Custom template',
  path: 'system/custom_templates',
  aliases: ['system/custom_template'],
  table: CourseTemplate.tableName,
  permission: 'COURSE_TEMPLATE',
  operations: ['list', 'get'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    name: { type: 'string', column: 'title', nullable: false },
    event_template_id: { type: 'integer', column: 'id', nullable: false },
    mappings: { type: 'array', description: 'score mappings: id, label, type_id, type' },
  },
  async enrich(db, rows, records) {
    const mappings = await mappingsOf(
      db,
      rows.map((r) => r.id as number),
    );
    rows.forEach((row, i) => {
      records[i]!.mappings = mappings.filter((m) => m.course_template_id === row.id).map(mappingRecord);
    });
  },
});
