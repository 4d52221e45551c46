/*
 * A run in words, from its record (GET /v1/runs/{id}), which the service fills from the
 * library's own rules (option aliases, rw and rwmixread, the volume's words, the analyses'
 * defaults): the run page's title and the compare view's labels. Nothing here reads a spec.
 */

/**
 * A row's name where runs are side by side, as the report names its rows: the volume
 * (`gp3 500 GiB 3000/125`, the service's `volume_label`), else the target.
 */
export function runLabel(run) {
  return run.volume_label || run.volume_text || run.target_text;
}

/** Labels of runs side by side; where two repeat, the target (if theirs differ) or a short run id is added. */
export function runLabels(runs) {
  const labels = runs.map(runLabel);
  return labels.map((l, i) => {
    const same = runs.filter((_, k) => labels[k] === l);
    if (same.length < 2) return l;
    const targets = new Set(same.map((r) => r.target_text));
    const target = runs[i].target_text;
    return targets.size === same.length && target !== l ? `${l} · ${target}` : `${l} · ${runs[i].id.slice(0, 8)}`;
  });
}

/**
 * The directions the run's jobs do (`only`: those named, a suite's test now): what a live chart
 * draws (a read job draws no write line).
 */
export function directionsOf(run, only) {
  if (!only) return run.directions;
  const dirs = new Set(only.flatMap((job) => run.job_directions[job] || []));
  return ['read', 'write', 'trim'].filter((d) => dirs.has(d));
}
