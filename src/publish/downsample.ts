/**
 * Per-second series cut down to what a chart can show. A chart is CHART_WIDTH pixels wide; a
 * 600 s run of 64 jobs has 600 points per line, most of which would share a pixel with their
 * neighbours while each still costs an SVG path segment and a row in the chart's table. Points
 * are merged in runs of k consecutive seconds, k the same for every line of the chart so the
 * lines keep a common x and the table stays one row per x: the merged point is the mean over
 * those seconds (the rate over the longer interval, as if the samples had been taken every k
 * seconds) at the time the interval ends. A burst-credit cliff stays a step, at most one
 * point wide.
 */

/** Points one line of a chart keeps: about one per two pixels of a 720-pixel chart. */
export const MAX_CHART_POINTS = 300;

export interface SeriesLine<P> {
  points: readonly P[];
}

/** Seconds merged into one point so the longest line has at most `max` points (1: none). */
export function mergeFactor(lines: ReadonlyArray<SeriesLine<unknown>>, max: number = MAX_CHART_POINTS): number {
  const longest = lines.reduce((n, l) => Math.max(n, l.points.length), 0);
  return longest <= max ? 1 : Math.ceil(longest / max);
}

/**
 * `points` in runs of `k`, each run merged into one: `x` of its last point, `y` the mean of
 * its points'. The last run may be shorter.
 */
export function mergePoints(points: ReadonlyArray<readonly [number, number]>, k: number): Array<[number, number]> {
  if (k <= 1) return points.map(([x, y]) => [x, y]);
  const out: Array<[number, number]> = [];
  for (let start = 0; start < points.length; start += k) {
    const run = points.slice(start, start + k);
    const mean = run.reduce((sum, p) => sum + p[1], 0) / run.length;
    out.push([run[run.length - 1][0], mean]);
  }
  return out;
}
