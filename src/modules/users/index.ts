/**
 * The public entry of the users module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { deleteExpiredLoginLimits, LOGIN_LIMITS_STORE } from './login-limits.data.js';
export { hashPassword } from './password.js';
export { ACCOUNT_FREE_FAILURES, MAX_WAIT_S, waitAfter } from './password-guard.js';
export { type SignIn } from './sign-in.service.js';
export {
  activeUserJsonSql,
  activeUsersWithRole,
  activeUserWithPermissions,
  findActiveUser,
  userIdOfContact,
  type ActiveUser,
} from './users.data.js';
export { credentialsInput } from './users.service.js';
