import { createPlatformAdmin } from '../modules/admins/admins.service.js';
import { str } from './command.js';
import type { Runners } from './manifest.js';

/** Platform administrators (ops), who sign in to the queue dashboard. */
export const runners: Runners<'admins'> = {
  'admins:create': async (rt, flags) => ({
    output: await createPlatformAdmin(rt.knex, { email: str(flags, 'email'), password: str(flags, 'password') }),
  }),
};
