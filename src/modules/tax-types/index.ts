/**
 * The public entry of the tax-types module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { TAX_TYPE_ROWS, TaxType, taxTypesByIds, type TaxTypeRow } from './tax-types.data.js';
