import { isCalendarDate } from '../../platform/util/dates.js';
import type { MappingRow } from './course-templates.data.js';

export { mappingsOf, type MappingRow } from './course-templates.data.js';

/** Field types of score mappings: what a score value must look like. */
export const MAPPING_TYPES: Record<number, { name: string; valid: (v: string) => boolean; hint: string }> = {
  1: { name: 'text', valid: () => true, hint: 'any text' },
  2: { name: 'date', valid: (v) => v === '' || isCalendarDate(v), hint: 'a date YYYY-MM-DD' },
  3: { name: 'checkbox', valid: (v) => v === 'on' || v === '', hint: "'on' or ''" },
  4: { name: 'number', valid: (v) => v === '' || /^-?\d+(\.\d+)?$/.test(v), hint: 'a numeric string' },
};

export const mappingRecord = (m: MappingRow) => ({
  id: m.id,
  label: m.label,
  type_id: m.type_id,
  type: MAPPING_TYPES[m.type_id]?.name ?? null,
});
