import { lineProblems, problem, type Problem } from '../../platform/problems.js';

/** What a tax type may hold: a name, and a rate in percent from 0 to 100 with at most 3 decimals. */

export interface TaxTypeInput {
  name: string;
  rate: number;
}

export function taxTypeProblems(input: TaxTypeInput): Problem[] {
  const problems: Problem[] = [...lineProblems('name', input.name, 100, true)];
  if (!(input.rate >= 0 && input.rate <= 100) || Math.abs(Math.round(input.rate * 1000) - input.rate * 1000) > 1e-6)
    problems.push(problem('rate', String(input.rate), 'rate must be a percentage from 0 to 100 with at most 3 decimals'));
  return problems;
}
