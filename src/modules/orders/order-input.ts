import crypto from 'node:crypto';
import { z } from 'zod';
import { BadRequestError } from '../../platform/errors.js';
import { MAX_AMOUNT } from './money.js';

/**
 * The body of `POST /api/v2/orders` (contract: "Create an order"), checked before anything is
 * read: types, ranges, sizes, and no fields the contract does not name. Whether the ids name
 * existing records is the intake's business (contract rule 1: items that reference nothing are
 * dropped, not refused).
 */
const id = z
  .int({ error: 'must be an integer id' })
  .min(1, { error: 'must be an integer id' })
  .max(2147483647, { error: 'must be an integer id' });
const amount = z
  .number({ error: 'must be a number' })
  .min(0, { error: 'must not be negative' })
  .max(MAX_AMOUNT, { error: `must be at most ${MAX_AMOUNT}` });
const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((v) => !v.includes('\u0000'), { error: 'must not contain NUL characters' });

const student = z.strictObject({ contact_id: id });
const child = z.strictObject({ item_id: id, price: amount.optional() });
const item = z
  .strictObject({
    event_id: id.optional(),
    price: amount,
    contact_id: id.optional(),
    quantity: z
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be at least 1' })
      .max(1000, { error: 'must be at most 1000' })
      .optional(),
    students: z.array(student, { error: 'must be an array' }).max(500, { error: 'must have at most 500 entries' }).optional(),
    children: z.array(child, { error: 'must be an array' }).max(50, { error: 'must have at most 50 entries' }).optional(),
  })
  .superRefine((it, ctx) => {
    const named = [...(it.contact_id ? [it.contact_id] : []), ...(it.students ?? []).map((s) => s.contact_id)];
    if (it.students?.length && it.event_id === undefined)
      ctx.addIssue({ code: 'custom', path: ['students'], message: 'are allowed only on an item with an event_id' });
    if (new Set(named).size !== named.length)
      ctx.addIssue({ code: 'custom', path: ['students'], message: 'must not name the same contact twice' });
    if (it.quantity !== undefined && it.quantity < named.length) {
      ctx.addIssue({ code: 'custom', path: ['quantity'], message: `must be at least the number of named delegates (${named.length})` });
    }
  });

export const orderSchema = z.strictObject({
  contact_id: id,
  company_id: id.optional(),
  items: z.array(item, { error: 'must be an array' }).max(200, { error: 'must have at most 200 items' }).optional(),
  payment: z
    .strictObject({
      amount,
      type: text(100).min(1, { error: 'must not be empty' }),
      currency: z
        .string({ error: 'must be a string' })
        .regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 code such as GBP' })
        .optional(),
      transaction_code: text(255).optional(),
    })
    .optional(),
  external_id: text(255).optional(),
  region_id: text(64).optional(),
  currency_id: text(16).optional(),
  source_type_id: id.optional(),
});

export type OrderInput = z.infer<typeof orderSchema>;
export type OrderItem = NonNullable<OrderInput['items']>[number];

/** `items.0.quantity` from a zod path. */
const pathOf = (path: readonly PropertyKey[]) => path.map(String).join('.');

/** Parses an order body; a 400 naming every field at fault otherwise. */
export function parseOrder(body: unknown): OrderInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('The order must be a JSON object', undefined, 'invalid_body');
  }
  const parsed = orderSchema.safeParse(body, { reportInput: true });
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) fields[pathOf([...issue.path, key])] = 'unknown field';
    } else {
      fields[pathOf(issue.path)] ??= issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    }
  }
  const summary = Object.entries(fields)
    .slice(0, 10)
    .map(([k, m]) => `${k} ${m}`)
    .join('; ');
  throw new BadRequestError(`The order was not accepted: ${summary}`, { fields }, 'invalid_order');
}

/** Canonical JSON (keys sorted at every level): the same order sent twice hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What an Idempotency-Key is bound to: a hash of the order as parsed. */
export function orderHash(order: OrderInput): string {
  return crypto.createHash('sha256').update(canonical(order)).digest('hex');
}

/** An Idempotency-Key header: 1 to 255 visible ASCII characters (RFC 8941 string-ish). */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(header)) {
    throw new BadRequestError(
      'Idempotency-Key must be 1 to 255 visible ASCII characters',
      { header: 'Idempotency-Key' },
      'invalid_idempotency_key',
    );
  }
  return header;
}
