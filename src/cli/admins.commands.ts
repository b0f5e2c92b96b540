import { createPlatformAdmin } from '../modules/admins/admins.service.js';
import { str, type Commands } from './command.js';

/** Platform administrators (ops), who sign in to the queue dashboard. */
export const adminCommands: Commands = {
  'admins:create': {
    summary: 'Create a platform administrator (signs in to the queue dashboard at /admin/queues)',
    flags: { email: { required: true, description: 'login email' }, password: { required: true, description: 'at least 10 characters' } },
    run: async (rt, flags) => ({
      output: await createPlatformAdmin(rt.knex, { email: str(flags, 'email'), password: str(flags, 'password') }),
    }),
  },
};
