import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import {
  definitionById,
  definitionKeyTaken,
  hasTranslatedValues,
  insertDefinition,
  updateDefinition,
  type DefinitionRow,
} from './custom-fields.data.js';
import {
  changedDefinition,
  newDefinition,
  translatabilityProblems,
  turnsTranslationOff,
  type DefinitionInput,
} from './custom-fields.rules.js';

/**
 * Custom field definitions (a key, a label, a type, what they apply to, whether they can be
 * translated). Their values are written with the records they belong to (see
 * custom-fields.rules.ts for the checks and custom-fields.data.ts for the writes).
 */

/** Creates a definition; its key must be new. A write with problems writes nothing. */
export async function createDefinition(db: Db, input: DefinitionInput): Promise<{ definition: DefinitionRow | null; problems: Problem[] }> {
  const { problems, definition } = newDefinition(input);
  if (!definition) return { definition: null, problems };
  if (await definitionKeyTaken(db, definition.key))
    return { definition: null, problems: [problem('key', definition.key, 'A custom field with this key exists')] };
  return { definition: await insertDefinition(db, definition), problems: [] };
}

/**
 * Changes the label, translatability and validation of a definition; its key, type and what it
 * applies to stay. Translatability cannot be turned off while translated values exist. Problems
 * about the definition itself name `customFieldDefinitionId`.
 */
export async function changeDefinition(
  db: Db,
  id: number,
  input: DefinitionInput,
): Promise<{ definition: DefinitionRow | null; problems: Problem[] }> {
  const existing = await definitionById(db, id);
  if (!existing) return { definition: null, problems: [problem('customFieldDefinitionId', id, 'Custom Field Definition not found')] };
  const change = changedDefinition(existing, input);
  const problems = [...change.problems];
  if (turnsTranslationOff(existing, input))
    problems.push(...translatabilityProblems(existing, input, await hasTranslatedValues(db, existing.applies_to, existing.id)));
  if (problems.length || !change.definition) return { definition: null, problems };
  return { definition: await updateDefinition(db, existing.id, change.definition), problems: [] };
}
