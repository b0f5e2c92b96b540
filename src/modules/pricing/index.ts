/**
 * The public entry of the pricing module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export {
  mostUsedCurrency,
  namedPricesOf,
  priceOwnerId,
  pricesOf,
  whereHasPrice,
  type NamedPriceRow,
  type PriceOwner,
} from './pricing.data.js';
export { changePriceAmount } from './pricing.service.js';
export { financialUnitOf, type FinancialUnit } from './financial-units.js';
