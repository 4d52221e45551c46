/**
 * Assertion outcomes as JUnit XML, the report format CI systems (GitHub, GitLab, Jenkins, Azure)
 * all read: one <testcase> per assertion, a <failure> for each that does not hold, the measured
 * value as a property and in <system-out>.
 */
import type { FioJson } from '../fio-output/fio-result.js';
import type { AssertionOutcome } from './evaluate.js';

export interface JUnitOptions {
  /** The <testsuite> name and the prefix of every classname (default "volbench"). */
  name?: string;
  /**
   * The result judged: gives the timestamp and each testcase's time: for a suite, the wall time
   * of the test its job belongs to (all its loops and its layout) and the suite's own; else its
   * job's elapsed.
   */
  result?: FioJson;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  // Control characters other than tab and newline are not allowed in XML 1.0 at all.
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values).map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`).join('');
}

function jobSeconds(result: FioJson | undefined, job: string): number {
  const test = result?.volbench?.suite?.tests?.find((t) => t.jobs.includes(job));
  if (test) return seconds(test.wall_ms);
  const entry = result?.jobs.find((j) => j.jobname === job);
  return entry ? entry.elapsed : 0;
}

/** JUnit's time: seconds, to the millisecond. */
function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

/** The whole report's time: a suite's wall time, else its jobs' times summed (each counted once). */
function suiteSeconds(result: FioJson | undefined, jobs: ReadonlySet<string>): number {
  const wall = result?.volbench?.suite?.wall_ms;
  if (wall !== undefined) return seconds(wall);
  return [...jobs].reduce((sum, job) => sum + jobSeconds(result, job), 0);
}

function testcase(o: AssertionOutcome, name: string, result: FioJson | undefined): string {
  const measured = o.measured === null ? 'none' : String(o.measured);
  const lines = [
    `    <testcase${attrs({ classname: `${name}.${o.job}`, name: o.expr, time: jobSeconds(result, o.job) })}>`,
    '      <properties>',
    `        <property${attrs({ name: 'measured', value: measured })}/>`,
    `        <property${attrs({ name: 'wanted', value: `${o.op} ${o.wanted}` })}/>`,
    `        <property${attrs({ name: 'unit', value: o.unit })}/>`,
    '      </properties>',
  ];
  if (!o.passed) {
    lines.push(`      <failure${attrs({ message: o.message, type: 'AssertionFailed' })}>${escapeXml(`${o.expr}: ${o.message}`)}</failure>`);
  }
  lines.push(`      <system-out>${escapeXml(`${o.expr}: ${o.message}`)}</system-out>`, '    </testcase>');
  return lines.join('\n');
}

/** The outcomes as a JUnit XML document (newline-terminated). */
export function toJUnit(outcomes: readonly AssertionOutcome[], options: JUnitOptions = {}): string {
  const name = options.name ?? 'volbench';
  const failures = outcomes.filter((o) => !o.passed).length;
  const jobs = new Set(outcomes.map((o) => o.job));
  const time = suiteSeconds(options.result, jobs);
  const timestamp = new Date(options.result?.timestamp_ms ?? Date.now()).toISOString().replace(/\.\d{3}Z$/, '');
  const counts = { tests: outcomes.length, failures, errors: 0 };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name, ...counts, time })}>`,
    `  <testsuite${attrs({ name, ...counts, skipped: 0, timestamp, time })}>`,
    ...outcomes.map((o) => testcase(o, name, options.result)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
