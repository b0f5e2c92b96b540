/**
 * The public entry of the crm module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { CONTACT_ROWS, COMPANY_ROWS, Company, Contact, contactExists, contactNames, contactsByIds, type ContactCard } from './crm.data.js';
