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

/**
 * Types whose ids the production service spells with another name, which the Core API takes as
 * well: its events are `Course:<n>` (`Q291cnNlOjE1`, real-clients.md section 1), and its webhook
 * receivers decode the prefix `Course` as an event (section 5.A), so integrations moving to
 * Lectern hold event ids in that form. Lectern answers its own spelling (`Event:<n>`) and never
 * writes this one. Core has no type of that name, so nothing else is named by it there. Not on
 * WebLink, whose `Course` is a course template: its lists read ids with {@link fromGlobalId}.
 */
const CORE_SPELLINGS: ReadonlyMap<string, string> = new Map([
  ['Course', 'Event'],
  // A webhook's id, as the production service spells it and as Lectern writes it (webhooks.graphql.ts).
  ['OutboundHook', 'Webhook'],
]);

/** {@link fromGlobalId} as the Core API reads an id: the production service's spellings ({@link CORE_SPELLINGS}) name Lectern's type. */
export function fromCoreId(id: string): { type: string; legacyId: number } | undefined {
  const parsed = fromGlobalId(id);
  return parsed && { ...parsed, type: CORE_SPELLINGS.get(parsed.type) ?? parsed.type };
}

/** The legacy id in `id` when it names a `type` (read as Core reads ids: {@link fromCoreId}); undefined for anything else (another type, garbage). */
export function legacyIdOf(type: string, id: unknown): number | undefined {
  if (typeof id !== 'string') return undefined;
  const parsed = fromCoreId(id);
  return parsed?.type === type ? parsed.legacyId : undefined;
}
