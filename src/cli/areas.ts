import type { Area, Runners } from './manifest.js';

/**
 * Each area's file (`<area>.commands.ts`), imported when one of its commands runs: the type says
 * each exports the runners of exactly its commands in manifest.ts. Apart from the manifest so that
 * the area files, which read its types, and it do not import each other in a circle.
 */
export const AREAS: { [A in Area]: () => Promise<{ runners: Runners<A> }> } = {
  tenants: () => import('./tenants.commands.js'),
  users: () => import('./users.commands.js'),
  admins: () => import('./admins.commands.js'),
  usage: () => import('./usage.commands.js'),
  orders: () => import('./orders.commands.js'),
  locales: () => import('./locales.commands.js'),
  clients: () => import('./clients.commands.js'),
  portals: () => import('./portals.commands.js'),
  placement: () => import('./placement.commands.js'),
  database: () => import('./database.commands.js'),
};
