/**
 * The public face of the events module for other modules' GraphQL and WebLink faces: the object
 * types, scalars, inputs and field builders they compose. Root fields, mutations and routes are not
 * here: the app wires those (`src/app/`). `npm run lint` refuses an import of any other file of a
 * module from outside it.
 */
export { bookedOf, EventObject, eventById } from './event-type.graphql.js';
export { SessionLifecycleStateEnum, SessionObject, sessionById } from './session-type.graphql.js';
