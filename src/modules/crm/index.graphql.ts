/**
 * The public face of the crm module for other modules' GraphQL and WebLink faces: the object
 * types, scalars, inputs and field builders they compose. Root fields, mutations and routes are not
 * here: the app wires those (`src/app/`). `npm run lint` refuses an import of any other file of a
 * module from outside it.
 */
export { AccountObject, accountField, CountryObject } from './accounts.graphql.js';
export { ContactObject, contactField } from './contacts.graphql.js';
