/**
 * The public entry of the events module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export {
  EVENT_ROWS,
  Event,
  eventsByIds,
  eventsOfTemplate,
  lockEventsForCapacity,
  placesBooked,
  templateEventIds,
  type EventRow,
} from './events.data.js';
export { readInheritance, reinheritEvents } from './events.service.js';
