import { ForbiddenError } from '../../platform/errors.js';

/**
 * The permissions a request runs with when its user came from a process's cache: they remember
 * every answer they gave (`includes`, which permission checks ask), so that when the request's
 * first statement finds the cached user outdated (ListenedCache.check), the answers already given
 * can be held against the user as they are now. A permission granted and since taken away refuses
 * the request; otherwise the request goes on with the current permissions, which answer every
 * later check. (A permission denied and since granted is not held against it: the request keeps
 * the refusal it got, moments after the grant.)
 */
export class AskedPermissions extends Array<string> {
  private readonly answers = new Map<string, boolean>();

  // map, filter and the like make plain arrays.
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  static remembering(permissions: readonly string[]): AskedPermissions {
    const asked = new AskedPermissions();
    asked.push(...permissions);
    return asked;
  }

  override includes(permission: string, fromIndex?: number): boolean {
    const answer = super.includes(permission, fromIndex);
    if (fromIndex === undefined && !this.answers.has(permission)) this.answers.set(permission, answer);
    return answer;
  }

  /** A permission this request was granted that `now` no longer holds. */
  lostIn(now: readonly string[]): string | undefined {
    for (const [permission, granted] of this.answers) if (granted && !now.includes(permission)) return permission;
    return undefined;
  }

  /** From now on, answers from `now`. */
  replaceWith(now: readonly string[]): void {
    this.length = 0;
    this.push(...now);
  }
}

/** What a request takes of a cached user, as both REST Basic auth and the Core API read it. */
export interface CachedIdentity {
  id: number;
  email: string;
  company_id: number | null;
  password_hash: string | null;
  permissions: string[];
}

/**
 * Whether a request that took `cached` from a cache may go on now that the user reads `fresh`
 * (undefined: no longer active): `unauthenticated` when it is gone or is no longer the same user
 * (another id, email, company, or, with `password`, password), 403 when a permission the request
 * was granted was taken away; else undefined, and `asked` answers from the current permissions.
 */
export function identityRefusal(
  cached: CachedIdentity,
  fresh: CachedIdentity | undefined,
  asked: AskedPermissions,
  opts: { password: boolean; unauthenticated: () => Error },
): Error | undefined {
  if (!fresh || fresh.id !== cached.id || fresh.email !== cached.email || fresh.company_id !== cached.company_id)
    return opts.unauthenticated();
  if (opts.password && fresh.password_hash !== cached.password_hash) return opts.unauthenticated();
  const lost = asked.lostIn(fresh.permissions);
  if (lost !== undefined) return new ForbiddenError(`Your role does not have the ${lost} permission`, 'permission_denied');
  asked.replaceWith(fresh.permissions);
  return undefined;
}
