/*
 * A running run's live view, from its progress events (about one a second): the figures now
 * (IOPS, MiB/s, latency per direction, % done, ETA), a chart of IOPS and MiB/s over latency,
 * and a table of every second, newest first. Only the directions the run does are drawn.
 */
import { $, el, fmtBytes, fmtDuration, fmtInt, fmtMiBps, fmtTimeNs } from './common.js';

/** Rows the table keeps: enough to read back a few minutes; the chart keeps every point. */
const TABLE_ROWS = 300;
const MIB = 1024 * 1024;

/**
 * The share of the whole run done: a suite's tests and loops, an analysis's steps and a run's
 * stonewall stages each take an equal part.
 */
function overallFraction(p) {
  if (p.suite_test && p.suite_test.fraction !== undefined) return p.suite_test.fraction;
  let done = (p.stage + p.fraction) / Math.max(1, p.stages);
  if (p.analysis_step) done = (p.analysis_step.step - 1 + done) / Math.max(1, p.analysis_step.steps);
  if (p.suite_test) {
    const t = p.suite_test;
    done = ((t.test - 1) * t.loops + (t.loop - 1) + done) / Math.max(1, t.tests * t.loops);
  }
  return Math.min(1, Math.max(0, done));
}

/**
 * Ms until the run ends, as the service reckons it (from what each job has left, a layout from
 * its bytes left): a run of one stage, and a suite as a whole; else (more stages, an analysis's
 * steps) from its pace so far.
 */
function overallEta(p, done, elapsedMs) {
  if (p.suite_test && p.suite_test.eta_ms !== undefined) return p.suite_test.eta_ms;
  if (p.stages <= 1 && !p.suite_test && !p.analysis_step) return p.eta_ms;
  return done > 0.01 ? (elapsedMs * (1 - done)) / done : null;
}

/** `45% of 4.0 GiB, 130 MiB/s`: how far the layout is. */
function layoutText(l) {
  const share = l.total_bytes > 0 ? Math.floor((100 * l.done_bytes) / l.total_bytes) : 100;
  return `${share}% of ${fmtBytes(l.total_bytes)}${l.bytes_per_sec === null ? '' : `, ${fmtMiBps(l.bytes_per_sec)}`}`;
}

/** Where in the run a progress report is: its clock restarts with each stage, test and step. */
function phaseKey(p) {
  return `${p.suite_test ? `${p.suite_test.test}.${p.suite_test.loop}` : ''}/${p.analysis_step ? p.analysis_step.step : ''}/${p.stage}`;
}

/** A direction's one colour: its rates above and its latencies below are drawn alike. */
const COLOURS = { read: '#5470c6', write: '#ee6666', trim: '#3ba272' };

function chartOption(dirs) {
  const series = dirs.flatMap((d) => {
    const color = COLOURS[d];
    const line = (name, xAxisIndex, yAxisIndex, dashed) => ({
      name, type: 'line', xAxisIndex, yAxisIndex, showSymbol: false, itemStyle: { color }, lineStyle: { color, ...(dashed ? { type: 'dashed' } : {}) }, data: [],
    });
    return [line(`${d} IOPS`, 0, 0, false), line(`${d} MiB/s`, 0, 1, true), line(`${d} p99 µs`, 1, 2, false), line(`${d} mean µs`, 1, 2, true)];
  });
  return {
    animation: false,
    textStyle: { fontFamily: 'sans-serif' },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, type: 'scroll' },
    axisPointer: { link: [{ xAxisIndex: 'all' }] },
    grid: [{ left: 70, right: 70, top: 70, height: '34%' }, { left: 70, right: 70, top: '62%', bottom: 40 }],
    xAxis: [
      { type: 'value', gridIndex: 0, min: 0, axisLabel: { show: false } },
      { type: 'value', gridIndex: 1, min: 0, name: 'seconds', nameLocation: 'middle', nameGap: 25 },
    ],
    yAxis: [
      { type: 'value', gridIndex: 0, name: 'IOPS' },
      { type: 'value', gridIndex: 0, name: 'MiB/s', position: 'right', splitLine: { show: false } },
      { type: 'value', gridIndex: 1, name: 'clat µs' },
    ],
    series,
  };
}

export class LiveView {
  /** `dirs`: the run's directions; `dirsNow(progress)`: those of the part running now, or null for all. */
  constructor(dirs, dirsNow = () => null) {
    this.dirs = dirs;
    this.dirsNow = dirsNow;
    this.points = [];
    this.offsetS = 0;
    this.phase = null;
    this.lastS = 0;
    this.startedAt = null;
    $('#live-chart').dataset.points = '0';
    $('#live-now').replaceChildren();
    $('#live-progress').value = 0;
    const head = ['seconds', 'done', ...dirs.flatMap((d) => [`${d} IOPS`, `${d} MiB/s`, `${d} clat mean`, `${d} clat p99`])];
    $('#live-table thead').replaceChildren(el('tr', {}, head.map((h) => el('th', { text: h }))));
    $('#live-table tbody').replaceChildren();
    this.chart = echarts.init($('#live-chart'), null, { renderer: 'svg' });
    this.chart.setOption(chartOption(dirs));
  }

  add(p) {
    // A direction the spec did not predict (it moved anyway) is drawn from now on.
    for (const d of ['read', 'write', 'trim']) {
      if (!this.dirs.includes(d) && p[d] && p[d].iops > 0) this.redraw([...this.dirs, d]);
    }
    const key = phaseKey(p);
    if (this.phase !== null && key !== this.phase) this.offsetS = this.lastS;
    this.phase = key;
    const t = this.offsetS + p.elapsed_ms / 1000;
    this.lastS = t;
    this.startedAt ??= performance.now() - p.elapsed_ms;
    const now = this.dirsNow(p);
    this.points.push({ t, p, active: (d) => !now || now.includes(d) || p[d].iops > 0 });
    this.draw();
    this.showNow(p, t, this.points.at(-1).active);
    this.prependRow(p, t, this.points.at(-1).active);
  }

  redraw(dirs) {
    this.dirs = dirs;
    this.chart.setOption(chartOption(dirs), { notMerge: true });
    const head = ['seconds', 'done', ...dirs.flatMap((d) => [`${d} IOPS`, `${d} MiB/s`, `${d} clat mean`, `${d} clat p99`])];
    $('#live-table thead').replaceChildren(el('tr', {}, head.map((h) => el('th', { text: h }))));
  }

  draw() {
    // A direction the part running now does not do has a gap there, not a line at 0.
    const line = (d, value) => this.points.map(({ t, p, active }) => [t, active(d) ? value(p[d]) : null]);
    const series = this.dirs.flatMap((d) => [
      { data: line(d, (s) => s.iops) },
      { data: line(d, (s) => s.bw_bytes / MIB) },
      { data: line(d, (s) => s.clat_p99_ns / 1000) },
      { data: line(d, (s) => s.clat_mean_ns / 1000) },
    ]);
    this.chart.setOption({ series });
    $('#live-chart').dataset.points = String(this.points.length);
  }

  showNow(p, t, active) {
    const done = overallFraction(p);
    const eta = overallEta(p, done, t * 1000);
    const where = [];
    if (p.suite_test) where.push(`test ${p.suite_test.test}/${p.suite_test.tests}${p.suite_test.loops > 1 ? `, loop ${p.suite_test.loop}/${p.suite_test.loops}` : ''}`);
    if (p.analysis_step) where.push(`${p.analysis_step.analysis} step ${p.analysis_step.step}/${p.analysis_step.steps}`);
    if (p.stages > 1) where.push(`stage ${p.stage + 1}/${p.stages}`);
    const figure = (name, value, label) => el('div', { className: 'figure', 'data-figure': name }, [el('span', { className: 'value', text: value }), el('span', { className: 'label', text: label })]);
    const figures = [
      figure('done', `${(done * 100).toFixed(1)}%`, where.length ? `done (${where.join(', ')})` : 'done'),
      figure('eta', fmtDuration(eta), 'ETA'),
      ...(p.layout ? [figure('layout', layoutText(p.layout), `laying out ${p.layout.path}`)] : []),
      ...this.dirs.filter(active).flatMap((d) => [
        figure(`${d}-iops`, fmtInt(p[d].iops), `${d} IOPS`),
        figure(`${d}-mibps`, fmtMiBps(p[d].bw_bytes), `${d} throughput`),
        figure(`${d}-lat`, `${fmtTimeNs(p[d].clat_mean_ns)} / ${fmtTimeNs(p[d].clat_p99_ns)}`, `${d} clat mean / p99`),
      ]),
    ];
    $('#live-now').replaceChildren(...figures);
    $('#live-progress').value = done;
  }

  prependRow(p, t, active) {
    const cells = [t.toFixed(1), `${(overallFraction(p) * 100).toFixed(1)}%`,
      ...this.dirs.flatMap((d) => (active(d)
        ? [fmtInt(p[d].iops), (p[d].bw_bytes / MIB).toFixed(1), fmtTimeNs(p[d].clat_mean_ns), fmtTimeNs(p[d].clat_p99_ns)]
        : ['', '', '', '']))];
    const body = $('#live-table tbody');
    body.prepend(el('tr', {}, cells.map((c) => el('td', { className: 'num', text: c }))));
    while (body.rows.length > TABLE_ROWS) body.lastElementChild.remove();
  }

  dispose() {
    this.chart.dispose();
  }
}
