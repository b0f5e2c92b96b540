/**
 * Global ids, as clients of this API know them: standard base64 of `"<Type>:<legacy id>"`
 * (`Q291cnNlVGVtcGxhdGU6MTI=` is `CourseTemplate:12`). An id names a row of the caller's tenant
 * only because every lookup runs in the tenant's schema: the same id in another tenant's
 * request names that tenant's row or nothing, never this one.
 */
export function toGlobalId(type: string, legacyId: number): string {
  return Buffer.from(`${type}:${legacyId}`, 'utf8').toString('base64');
}

export function fromGlobalId(id: string): { type: string; legacyId: number } | undefined {
  if (typeof id !== 'string' || id.length > 200 || !/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return undefined;
  const m = /^([A-Za-z]+):(\d{1,10})$/.exec(Buffer.from(id, 'base64').toString('utf8'));
  if (!m) return undefined;
  const legacyId = Number(m[2]);
  return legacyId >= 1 && legacyId <= 2147483647 ? { type: m[1]!, legacyId } : undefined;
}

/** The legacy id in `id` when it names a `type`; undefined for anything else (another type, garbage). */
export function legacyIdOf(type: string, id: unknown): number | undefined {
  if (typeof id !== 'string') return undefined;
  const parsed = fromGlobalId(id);
  return parsed?.type === type ? parsed.legacyId : undefined;
}
