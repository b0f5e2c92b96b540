import type { GraphQLFieldConfigMap } from 'graphql';
import type { GraphQLContext } from './context.js';

/**
 * Fields one module adds to another module's object type, where the owner cannot import the
 * adder without a cycle: `Event.sessions` is the events module's, `Event.staff` the staff
 * module's, `Contact.learners` the delegates module's. The owner's fields thunk spreads
 * `extensionFields('Event')`; the app registers the additions (`extendObject`) before it builds
 * the schema, so the whole schema is still assembled in one place (src/app/graphql-schema.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each type's source differs; the adder types its own fields
type Fields = GraphQLFieldConfigMap<any, GraphQLContext>;

const added = new Map<string, Fields>();
const read = new Set<string>();

/** Adds `fields` to the object type `typeName`; a field it already has, or a type already built, is a programming error. */
export function extendObject(typeName: string, fields: Fields): void {
  if (read.has(typeName)) throw new Error(`${typeName} is already built: extend it before the schema is built`);
  const mine = added.get(typeName) ?? {};
  for (const name of Object.keys(fields)) {
    if (name in mine) throw new Error(`${typeName}.${name} is added twice`);
  }
  added.set(typeName, { ...mine, ...fields });
}

/** The fields other modules added to `typeName`: spread at the end of its fields thunk. */
export function extensionFields(typeName: string): Fields {
  read.add(typeName);
  return added.get(typeName) ?? {};
}
