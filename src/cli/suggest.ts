/**
 * "Did you mean": the known names nearest a mistyped one. Small enough to keep here rather than
 * depend on a package (none of the project's direct dependencies computes an edit distance).
 */

/**
 * The optimal string alignment distance (Levenshtein with the swap of two adjacent characters
 * counted as one edit, as in `tenants:lsit`).
 */
export function editDistance(a: string, b: string): number {
  // d[i][j]: the distance between the first i characters of a and the first j of b.
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The names `input` was probably meant to be, best first (none when nothing is close): the nearest
 * within a few edits (case aside; more edits allowed for a longer name), else, for a bare area
 * (`tenants`, `orders:`), that area's commands; `list:tenants` finds `tenants:list`.
 */
export function suggest(input: string, names: readonly string[]): string[] {
  const typed = input.toLowerCase();
  const swapped = typed.split(':').reverse().join(':');
  const allowed = Math.min(3, Math.max(1, Math.floor(typed.length / 4)));
  const scored = names
    .map((name) => ({ name, distance: Math.min(editDistance(typed, name), editDistance(swapped, name)) }))
    .filter((s) => s.distance <= allowed);
  if (scored.length) {
    const best = Math.min(...scored.map((s) => s.distance));
    return scored.filter((s) => s.distance === best).map((s) => s.name);
  }
  const area = typed.replace(/:$/, '');
  return area ? names.filter((name) => name.startsWith(`${area}:`)) : [];
}

/** " Did you mean 'a'?", " Did you mean 'a' or 'b'?", or nothing. */
export function didYouMean(suggestions: readonly string[]): string {
  if (!suggestions.length) return '';
  const quoted = suggestions.map((s) => `'${s}'`);
  return ` Did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`}?`;
}
