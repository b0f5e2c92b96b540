/**
 * The public entry of the custom-fields module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export {
  copyEventValues,
  deleteTranslatedValues,
  inheritableTemplateValues,
  replaceInheritedEventValues,
  replaceTranslatedValues,
  valuesOf,
  valueTableOf,
  writeBaseValues,
  type DefinitionRow,
  type EventFieldValue,
  type FieldValueRow,
} from './custom-fields.data.js';
export {
  checkBaseValues,
  checkTranslatedValues,
  COURSE_TEMPLATE_VALUES,
  EVENT_VALUES,
  SESSION_VALUES,
  LEARNING_PATH_VALUES,
  type ResolvedValue,
  type ValueInput,
  type ValueOwner,
} from './custom-fields.rules.js';
