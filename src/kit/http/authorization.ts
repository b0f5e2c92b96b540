/** The token of an `Authorization: Bearer <token>` header (the scheme in any case, as the contract writes `bearer`). */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (!header) return undefined;
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return m ? m[1]! : null;
}
