/**
 * The public entry of the categories module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { CATEGORY_ROWS, categoriesByIds, Category, type CategoryCard } from './categories.data.js';
