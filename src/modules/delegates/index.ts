/**
 * The public entry of the delegates module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { Delegate, delegatesOfRegistrations, learnersByIds } from './delegates.data.js';
export { holdPlaces } from './learners.service.js';
export { type PlacesShortfall } from './registration.rules.js';
