/**
 * What `volbench suite` shows while it runs. On a terminal: a live table, a row per test (step,
 * loop, IOPS, p99, % done, ETA), under a line with the whole suite's share done and ETA. Off a
 * terminal (CI logs): a line as each run starts and as it ends, with its figures and the suite's
 * ETA, and a line per file laid out, so a long layout is never silent.
 */
import type { FileLayout, RunProgress } from '../run/progress.js';
import type { SuiteProgress } from '../suites/suite-clock.js';
import type { SuiteRunOptions, SuiteTestEnd, SuiteTestEvent } from '../suites/run-suite.js';
import { formatTimeNs } from '../gates/values.js';
import { LiveTable } from './live-table.js';
import { etaText, formatBandwidth, formatBytes } from './progress-line.js';

type Reporting = Required<Pick<SuiteRunOptions, 'onTest' | 'onTestEnd' | 'onSuiteProgress'>>;

function runIops(p: RunProgress): number {
  return p.read.iops + p.write.iops + p.trim.iops;
}

function runP99(p: RunProgress): number | null {
  const p99 = Math.max(p.read.clat_p99_ns, p.write.clat_p99_ns, p.trim.clat_p99_ns);
  return p99 > 0 ? p99 : null;
}

/** `laid out kdiskmark.tmp: 1024MiB in 3.2 s (320MiB/s)`. */
export function layoutDoneLine(l: FileLayout): string {
  const rate = l.elapsedMs > 0 ? `, ${formatBandwidth((l.doneBytes * 1000) / l.elapsedMs)}` : '';
  return `laid out ${l.path}: ${formatBytes(l.totalBytes)} in ${(l.elapsedMs / 1000).toFixed(1)} s${rate}`;
}

function where(e: SuiteTestEvent): string {
  return `[${e.test}/${e.tests}] ${e.jobs.join(', ')}${e.loops > 1 ? `, loop ${e.loop}/${e.loops}` : ''}`;
}

function endLine(e: SuiteTestEnd, etaMs: number | null): string {
  const figures = e.clean ? `${Math.round(e.iops).toLocaleString('en-US')} IOPS, p99 ${e.p99Ns === null ? '-' : formatTimeNs(e.p99Ns)}` : 'did not end cleanly';
  const rest = e.test === e.tests && e.loop === e.loops ? '' : `; suite eta ${etaText(etaMs)}`;
  return `${where(e)}: ${figures}, ${(e.durationMs / 1000).toFixed(1)} s${rest}`;
}

/** The suite's callbacks, drawing on `table`; `prefix` starts every line (`volbench suite kdiskmark: `). */
export function suiteReporting(table: LiveTable, tests: ReadonlyArray<{ jobs: string[] }>, prefix: string): Reporting {
  const key = (test: number): string => tests[test - 1].jobs.join(', ');
  tests.forEach((t, i) => table.set(key(i + 1), { step: `${i + 1}/${tests.length}` }));
  const best = new Map<number, SuiteTestEnd>();
  // What a test's run took last: the loops it has still to run take about as long.
  const lastMs = new Map<number, number>();
  const layoutsSaid = new Set<string>();
  let suiteEta: number | null = null;
  return {
    onTest: (e) => {
      table.set(key(e.test), { state: 'running', loop: e.loops > 1 ? `${e.loop}/${e.loops}` : undefined, fraction: (e.loop - 1) / e.loops });
      table.event(`${prefix}${where(e)}`);
      table.draw();
    },
    onTestEnd: (e) => {
      lastMs.set(e.test, e.durationMs);
      const kept = best.get(e.test);
      if (e.clean && (!kept || e.iops > kept.iops)) best.set(e.test, e);
      const shown = best.get(e.test) ?? e;
      const last = e.loop === e.loops || !e.clean;
      table.set(key(e.test), {
        iops: shown.iops, p99Ns: shown.p99Ns, fraction: e.loop / e.loops, doing: undefined,
        ...(last ? { state: e.clean ? 'done' : 'failed' } : {}),
      });
      table.event(`${prefix}${endLine(e, suiteEta)}`);
      table.draw();
    },
    onSuiteProgress: (p: SuiteProgress) => {
      suiteEta = p.etaMs;
      for (const l of p.run.layouts.filter((x) => x.ended && x.totalBytes > 0 && !layoutsSaid.has(`${p.test}.${p.loop} ${x.path}`))) {
        layoutsSaid.add(`${p.test}.${p.loop} ${l.path}`);
        table.event(`${prefix}${layoutDoneLine(l)}`);
      }
      const laying = p.run.layouts.find((l) => !l.ended);
      const layout = p.run.layingOut && laying && laying.totalBytes > 0 ? `layout ${Math.floor((100 * laying.doneBytes) / laying.totalBytes)}%` : undefined;
      const each = lastMs.get(p.test);
      const loopsLeft = p.loops - p.loop;
      const etaMs = p.run.etaMs === null || (loopsLeft > 0 && each === undefined) ? null : p.run.etaMs + loopsLeft * (each ?? 0);
      table.set(key(p.test), {
        iops: runIops(p.run), p99Ns: runP99(p.run), fraction: (p.loop - 1 + p.run.fraction) / p.loops, etaMs, doing: layout,
      });
      table.setStatus(`${prefix}test ${p.test}/${p.tests}${p.loops > 1 ? `, loop ${p.loop}/${p.loops}` : ''}, ${(p.fraction * 100).toFixed(1)}% done, eta ${etaText(p.etaMs)}`);
      table.draw();
    },
  };
}
