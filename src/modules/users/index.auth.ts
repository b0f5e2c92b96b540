/**
 * The users module's public face for other modules' HTTP authentication (the platform
 * administrators' Basic auth): parsing Basic credentials, remembering verified ones, and a
 * password check through the guard. `npm run lint` refuses an import of any other file of a
 * module from outside it.
 */
export { guardedCheck, parseBasic, VerifiedCredentials } from './basic-auth.js';
export type { PasswordGuard } from './password-guard.js';
