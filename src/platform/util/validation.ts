import type { z } from 'zod';
import { ValidationError } from '../errors.js';

/** Parses with a zod schema, or throws a ValidationError naming each field at fault. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const fields = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
  throw new ValidationError(
    `Invalid ${what}: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}`,
    { fields },
  );
}
