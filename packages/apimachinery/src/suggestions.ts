// Close-match suggestions for mistyped names ("did you mean …?"), the way cobra answers an unknown kubectl command
// (`SuggestionsFor`: Levenshtein distance, case-insensitive, plus prefix matches). Pure: no I/O, no Node APIs.

/**
 * The Levenshtein edit distance between `a` and `b`: the fewest single-character insertions, deletions and
 * substitutions that turn one into the other. Compares UTF-16 code units, case-sensitively.
 */
export function levenshteinDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // One row of the dynamic-programming table at a time: prev[j] is the distance between a[0..i) and b[0..j).
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitute = (prev[j - 1] ?? 0) + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, substitute);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] ?? 0;
}

/** Options of {@link suggestionsFor}. */
export interface SuggestionOptions {
  /** Largest edit distance that still counts as a close match (default 2, cobra's `SuggestionsMinimumDistance`). */
  readonly maxDistance?: number;
}

/**
 * The candidates that `typed` was probably meant to be, best first: those within `maxDistance` edits of it
 * (compared case-insensitively) and those it is a prefix of (`--kubeconfig` → `--kubeconfig-out`; a prefix of at
 * least 2 characters). Ties keep the candidates' order; duplicates and an exact match of `typed` itself are left
 * out. Empty when nothing is close.
 *
 * Differences from cobra's `SuggestionsFor`: results are ranked by distance (prefix matches count as distance 0
 * when the typed text is at least half the candidate, otherwise as `maxDistance`), and there is no
 * `SuggestFor` alias list.
 */
export function suggestionsFor(typed: string, candidates: Iterable<string>, options: SuggestionOptions = {}): string[] {
  return ranked(typed, candidates, options).map((r) => r.candidate);
}

function ranked(
  typed: string,
  candidates: Iterable<string>,
  options: SuggestionOptions,
): Array<{ candidate: string; rank: number }> {
  const maxDistance = options.maxDistance ?? 2;
  const lower = typed.toLowerCase();
  const ranked: Array<{ candidate: string; rank: number; order: number }> = [];
  const seen = new Set<string>();
  let order = 0;
  for (const candidate of candidates) {
    if (seen.has(candidate) || candidate === typed) continue;
    seen.add(candidate);
    const c = candidate.toLowerCase();
    const distance = levenshteinDistance(lower, c);
    const prefix = lower.length >= 2 && c.startsWith(lower);
    if (distance > maxDistance && !prefix) continue;
    const prefixRank = lower.length * 2 >= c.length ? 0 : maxDistance;
    ranked.push({ candidate, rank: prefix ? Math.min(distance, prefixRank) : distance, order: order++ });
  }
  ranked.sort((x, y) => x.rank - y.rank || x.order - y.order);
  return ranked;
}

/**
 * `"; did you mean X?"` (or `"; did you mean X or Y?"` for two equally close ones) for appending to an "unknown …"
 * message, or `""` when no candidate is close (see {@link suggestionsFor}).
 */
export function didYouMean(typed: string, candidates: Iterable<string>, options: SuggestionOptions = {}): string {
  const [first, second] = ranked(typed, candidates, options);
  if (first === undefined) return "";
  const also = second !== undefined && second.rank === first.rank ? ` or ${second.candidate}` : "";
  return `; did you mean ${first.candidate}${also}?`;
}
