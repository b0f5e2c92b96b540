/**
 * The public face of the staff module for other modules' GraphQL faces: the object types, scalars,
 * inputs and field builders they compose. Root fields, mutations and routes are not here: the app
 * wires those (`src/app/`). `npm run lint` refuses an import of any other file of a module from
 * outside it.
 */
export { StaffObject, StaffTypeEnum, eventStaffField, sessionStaffField } from './staff.graphql.js';
