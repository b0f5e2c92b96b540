import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { insertTaxType, type TaxTypeRow } from './tax-types.data.js';
import { taxTypeProblems, type TaxTypeInput } from './tax-types.rules.js';

export type { TaxTypeRow } from './tax-types.data.js';

/** Creates a tax type, or answers why not (writing nothing). */
export async function createTaxType(db: Db, input: TaxTypeInput): Promise<{ taxType: TaxTypeRow | null; problems: Problem[] }> {
  const problems = taxTypeProblems(input);
  if (problems.length) return { taxType: null, problems };
  return { taxType: await insertTaxType(db, { name: input.name, rate: input.rate }), problems: [] };
}
