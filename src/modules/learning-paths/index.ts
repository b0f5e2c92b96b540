/**
 * The public entry of the learning-paths module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { learningPathsByIds, objectivesOf, type LearningPathObjectiveRow } from './learning-paths.data.js';
