import { lineProblems, problem, type Problem } from '../../platform/problems.js';
import { hasNul } from '../../platform/util/dates.js';

/** What a venue may hold. */

export const VENUE_NAME_MAX_LENGTH = 200;
export const VENUE_DESCRIPTION_MAX_LENGTH = 10_000;

/** A venue as a write gives it: undefined = not given (an update keeps it), null = cleared. */
export interface VenueInput {
  /** Required on create; cannot be cleared. */
  name?: string | null;
  description?: string | null;
  /** The location the write names, as the face found it: null none, false one that does not exist. */
  location?: { id: number } | null | false;
}

export interface VenueColumnValues {
  name?: string;
  description?: string | null;
  location_id?: number | null;
}

/**
 * The problems of a venue write, and the columns it sets: a name of one line of at most 200
 * characters (required on create, never cleared), a description of at most 10,000 characters,
 * and a location that exists.
 */
export function venueChange(input: VenueInput, create: boolean): { problems: Problem[]; columns: VenueColumnValues } {
  const problems: Problem[] = [];
  const columns: VenueColumnValues = {};
  if (create || input.name !== undefined) {
    if (input.name == null || input.name.trim() === '') problems.push(problem('name', input.name ?? null, 'name must not be empty'));
    else {
      const wrong = lineProblems('name', input.name, VENUE_NAME_MAX_LENGTH);
      problems.push(...wrong);
      if (!wrong.length) columns.name = input.name;
    }
  }
  if (input.description != null && (input.description.length > VENUE_DESCRIPTION_MAX_LENGTH || hasNul(input.description)))
    problems.push(
      problem(
        'description',
        input.description.slice(0, 100),
        `description must be at most ${VENUE_DESCRIPTION_MAX_LENGTH} characters, without NUL characters`,
      ),
    );
  else if (input.description !== undefined) columns.description = input.description;
  if (input.location === false) problems.push(problem('locationId', null, 'Location not found'));
  else if (input.location !== undefined) columns.location_id = input.location?.id ?? null;
  return { problems, columns };
}

/** The most words one `wordlike` filter on venue names takes. */
export const MAX_NAME_WORDS = 20;

const ESCAPE_REGEX = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** Ends a word that ends in a symbol (`C++`): a space, punctuation or the end of the text. */
const SEPARATOR = `[[:space:].,;:!?"'()\\[\\]{}]`;

/**
 * `wordlike` on a name: each word of `value` (split at white space) as a whole word, as a
 * PostgreSQL regular expression (as the lists' wordlike reads one value): an end that is a
 * letter or digit must not touch another; an end that is a symbol must touch a space,
 * punctuation or the end of the text.
 */
export function wordPatterns(value: string): string[] {
  return value
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => {
      const left = WORD_CHAR.test(word.at(0) ?? '') ? '(^|\\W)' : `(^|${SEPARATOR})`;
      const right = WORD_CHAR.test(word.at(-1) ?? '') ? '(\\W|$)' : `(${SEPARATOR}|$)`;
      return `${left}${ESCAPE_REGEX(word)}${right}`;
    });
}
