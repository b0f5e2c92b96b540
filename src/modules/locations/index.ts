/**
 * The public entry of the locations module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { Location, locationRowsByIds, type LocationRow } from './locations.data.js';
