/*
 * A run in words, from its record (GET /v1/runs/{id}): what ran (its spec, suite or analysis),
 * on which target, on which volume. The run page's title and the compare view's labels.
 */

const DIRECTIONS_OF_RW = {
  read: ['read'], randread: ['read'], write: ['write'], randwrite: ['write'],
  rw: ['read', 'write'], readwrite: ['read', 'write'], randrw: ['read', 'write'], trim: ['trim'], randtrim: ['trim'],
};

/** A job's option by fio's name or alias: the job's own, else the global section's. */
function option(job, global, names) {
  for (const scope of [job, global]) {
    for (const name of names) if (scope && scope[name] !== undefined && scope[name] !== null) return scope[name];
  }
  return undefined;
}

/** The jobs of a spec with the options a title names, global ones applied. */
function jobsOf(spec) {
  const global = spec && spec.global;
  return ((spec && spec.jobs) || []).map((job, i) => ({
    name: String(option(job, {}, ['name']) ?? `job${i}`),
    // fio's rw may carry a postfix (randread:8); the words before it say the pattern.
    rw: String(option(job, global, ['rw', 'readwrite']) ?? 'read').split(':')[0],
    bs: option(job, global, ['bs', 'blocksize']),
    iodepth: option(job, global, ['iodepth']),
    numjobs: option(job, global, ['numjobs']),
    path: option(job, global, ['filename']) ?? option(job, global, ['directory']),
  }));
}

function jobText(job) {
  const parts = [job.rw];
  if (job.bs !== undefined) parts.push(`bs=${job.bs}`);
  if (job.iodepth !== undefined && String(job.iodepth) !== '1') parts.push(`iodepth=${job.iodepth}`);
  if (job.numjobs !== undefined && String(job.numjobs) !== '1') parts.push(`numjobs=${job.numjobs}`);
  return parts.join(' ');
}

function listText(items, shown) {
  return items.length > shown ? `${items.slice(0, shown).join(', ')} and ${items.length - shown} more` : items.join(', ');
}

/** What ran: `rr: randread bs=4k iodepth=32`, `suite kdiskmark (8 tests)`, `sweep over iodepth of ...`. */
export function specText(run) {
  const jobs = jobsOf(run.spec);
  if (run.suite) return `suite ${run.suite.name} (${jobs.length} test${jobs.length === 1 ? '' : 's'})`;
  const a = run.analysis;
  if (a && a.analysis === 'sweep') return `sweep over ${a.over || 'iodepth'} of ${jobs.length ? jobText(jobs[0]) : 'one job'}`;
  if (a && a.analysis === 'uniformity') return `uniformity${a.initialize ? ' (initialize)' : ''}: ${a.chunks || 100} chunks, ${a.write ? 'write' : 'read'}`;
  if (a) return a.analysis;
  if (jobs.length === 1) return `${jobs[0].name}: ${jobText(jobs[0])}`;
  return `${jobs.length} jobs: ${listText(jobs.map((j) => `${j.name} (${jobText(j)})`), 2)}`;
}

/** Where it ran: the paths the spec names, else the target roots it ran under. */
export function targetText(run) {
  const named = run.suite ? [run.suite.filename ?? run.suite.directory]
    : run.analysis && run.analysis.filename ? [run.analysis.filename]
      : jobsOf(run.spec).map((j) => j.path);
  const paths = [...new Set(named.filter((p) => p !== undefined && p !== null).map(String))];
  return listText(paths.length ? paths : run.targets, 1);
}

/** `gp3 500 GiB, 6000 IOPS, 250 MiB/s on m6i.large`, or null without a volume. */
export function volumeText(volume) {
  if (!volume) return null;
  const extras = [];
  if (volume.iops) extras.push(`${volume.iops} IOPS`);
  if (volume.throughput_mibps) extras.push(`${volume.throughput_mibps} MiB/s`);
  return `${volume.type} ${volume.size_gib} GiB${extras.length ? `, ${extras.join(', ')}` : ''}${volume.instance ? ` on ${volume.instance}` : ''}`;
}

export function runTitle(run) {
  const volume = volumeText(run.volume);
  return `${specText(run)} on ${targetText(run)}${volume ? ` (${volume})` : ''}`;
}

/**
 * A row's name where runs are side by side, as the report names its rows: the volume
 * (`gp3 500 GiB 3000/125`, the service's `volume_label`), else the target.
 */
export function runLabel(run) {
  return run.volume_label || volumeText(run.volume) || targetText(run);
}

/** Labels of runs side by side; where two repeat, the target (if theirs differ) or a short run id is added. */
export function runLabels(runs) {
  const labels = runs.map(runLabel);
  return labels.map((l, i) => {
    const same = runs.filter((_, k) => labels[k] === l);
    if (same.length < 2) return l;
    const targets = new Set(same.map(targetText));
    const target = targetText(runs[i]);
    return targets.size === same.length && target !== l ? `${l} · ${target}` : `${l} · ${runs[i].id.slice(0, 8)}`;
  });
}

/**
 * The directions the run's jobs do (`only`: those named, a suite's test now): what a live chart
 * draws (a read job draws no write line).
 */
export function directionsOf(run, only) {
  const a = run.analysis;
  if (a && a.analysis === 'uniformity') return [a.write ? 'write' : 'read'];
  if (a && a.analysis === 'rotational') return ['read'];
  const jobs = jobsOf(run.spec).filter((j) => !only || only.includes(j.name));
  const dirs = new Set(jobs.flatMap((j) => DIRECTIONS_OF_RW[j.rw] || ['read']));
  return ['read', 'write', 'trim'].filter((d) => dirs.has(d));
}
