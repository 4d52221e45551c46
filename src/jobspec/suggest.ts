/**
 * "Did you mean ...?" for misspelt option names, as fio's show_closest_option (parse.c
 * string_distance, string_distance_ok): Levenshtein distance, suggested only when it is at most
 * half the length of what was typed.
 */

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(prev[j] + 1, row[j - 1] + 1, substitute));
    }
    prev = row;
  }
  return prev[b.length];
}

/**
 * The closest candidate within fio's bound, the first of equals; undefined when none is close.
 * The distance is at least the difference in length, so a candidate whose length differs by more
 * than the bound is skipped unmeasured. That also bounds the work: option names are at most 30
 * characters, so a typed name of more than about 60 is compared with nothing, however long it is.
 */
export function closestName(typed: string, candidates: Iterable<string>): string | undefined {
  const bound = Math.floor((typed.length + 1) / 2);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - typed.length) > bound) continue;
    const d = editDistance(typed, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= bound ? best : undefined;
}

/** Try each list in turn: a close supported name beats a close name volbench lacks. */
export function suggestName(typed: string, ...lists: Array<Iterable<string>>): string | undefined {
  for (const list of lists) {
    const hit = closestName(typed, list);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
