import type { Knex } from '../../platform/db/knex.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { hasControlCharacter } from '../../platform/util/text.js';
import type { PasswordCheck, PasswordGuard } from './password-guard.js';
import { activeUserWithPermissions } from './users.data.js';

/**
 * Signing a tenant user in on Lectern's pages (OAuth sign-in, Control Panel). The password goes
 * through the same guard as REST Basic auth and the queue dashboard (see PasswordGuard): guesses
 * from one address slow down progressively, while the user signs in from anywhere else.
 * Messages never say whether an email exists: an unknown email costs a real password
 * verification and counts like a wrong password.
 */

export interface SignedInUser {
  id: number;
  email: string;
  permissions: string[];
}

export type SignInResult = { ok: true; user: SignedInUser } | Exclude<PasswordCheck, { ok: true }>;

export class SignIn {
  constructor(
    private readonly knex: Knex,
    private readonly passwords: PasswordGuard,
  ) {}

  async attempt(tenant: Tenant, emailInput: string, password: string, address: string): Promise<SignInResult> {
    const email = emailInput.trim().toLowerCase();
    // No account has such an email (a NUL, a line break, a novel): it is looked up nowhere and
    // counted under one name, refused like any wrong password.
    const possible = email.length <= 254 && !hasControlCharacter(email);
    const user = possible ? await withTenant(this.knex, tenant, (db) => activeUserWithPermissions(db, { email })) : undefined;
    const check = await this.passwords.check(
      `${tenant.id}:${possible ? email : '(no such email)'}`,
      address,
      user?.password_hash,
      password,
    );
    if (!check.ok) return check;
    if (!user) return { ok: false, reason: 'invalid' };
    return { ok: true, user: { id: user.id, email: user.email, permissions: user.permissions } };
  }
}
