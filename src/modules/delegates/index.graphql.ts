/**
 * The public face of the delegates module for other modules' GraphQL and WebLink faces: the object
 * types, scalars, inputs and field builders they compose. Root fields, mutations and routes are not
 * here: the app wires those (`src/app/`). `npm run lint` refuses an import of any other file of a
 * module from outside it.
 */
export { DelegateObject, delegatesOfRegistration } from './delegates.graphql.js';
export { LearnerObject, learnerById, LearnerLifecycleStateEnum } from './learners.graphql.js';
