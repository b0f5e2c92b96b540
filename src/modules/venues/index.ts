/**
 * The public entry of the venues module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { Venue, VENUE_ROWS, venueRowsByIds, type VenueRow } from './venues.data.js';
