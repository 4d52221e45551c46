/**
 * Running `npm run rehearse:fleet` from a test: the driver from its sources, the run's bundle,
 * and the goal every rehearsal is held to (tests/rehearsal/fleet-rehearsal*.test.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

import type { Study } from '../harness/fleet/study.js';
import { FROM_SOURCE_EXEC_ARGV } from '../harness/node-options.js';
import { ROOT } from '../helpers/cli.js';
import { fixture } from '../helpers/fixtures.js';

const DRIVER = join(ROOT, 'tests', 'harness', 'fleet', 'rehearse-fleet.ts');
export const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

export interface Outcome { code: number | null; stderr: string; seconds: number }

export function rehearse(args: string[]): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...FROM_SOURCE_EXEC_ARGV, DRIVER, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-200_000); });
    child.on('exit', (code) => resolve({ code, stderr, seconds: (Date.now() - started) / 1000 }));
  });
}

/** The members' bundle, as `npm run bundle` makes it: the run's one x64 bundle (the fleet uploads it to moto's S3). */
export async function runBundle(): Promise<string> {
  return join(await fixture('bundle-x64'), `volbench-${VERSION}-linux-x64.tar.gz`);
}

export const readStudy = (out: string) => JSON.parse(readFileSync(join(out, 'study.json'), 'utf8')) as Study;

/** The goal every rehearsal holds to: gated tests in the band with a bound_by, and nothing left (by kind, schedules included). */
export function expectGoal(study: Study, run: Outcome): void {
  expect(study.problems?.join('\n'), run.stderr.slice(-3000)).toBe('');
  expect(run.code).toBe(0);
  expect(study.scale).toEqual({ rate: 0.25, time: 0.1 });
  for (const v of study.volumes) {
    expect(v.tests.filter((t) => t.gated).length, v.label).toBeGreaterThan(0);
    for (const t of v.tests.filter((x) => x.gated)) {
      expect(t.ratio, `${v.label} ${t.test}`).toBeGreaterThanOrEqual(0.85);
      expect(t.ratio, `${v.label} ${t.test}`).toBeLessThanOrEqual(1.1);
      expect(t.bound_by, `${v.label} ${t.test}`).toBe(t.limit);
      expect(['ebs-stats', 'model']).toContain(t.bound_by_source);
    }
  }
  // The published report: a rehearsal's, at the study's scale, from the results alone.
  expect(study.report?.files).toEqual(['report.json', 'report.md', 'report.html']);
  expect(study.report?.rehearsal).toEqual({ rate: 0.25, time: 0.1 });
  expect(study.report?.banner).toBe('rehearsal on one host: rates ×0.25, buckets ×0.1; entitlements scaled to match; $ per IOPS and per MiB/s on the rates unscaled (measured ÷ 0.25)');
  // Listed by kind, not by tag: every kind the fleet creates, each empty.
  expect(Object.keys(study.leftovers).sort()).toEqual(['iam_roles', 'instance_profiles', 'instances', 'launch_templates', 's3_objects_outside_results',
    'schedule_groups', 'schedules', 'security_groups', 'ssm_parameters', 'stacks', 'volumes']);
  expect(Object.values(study.leftovers).every((n) => n === 0), JSON.stringify(study.leftover_items)).toBe(true);
  expect(Object.values(study.leftovers_after_down ?? {}).every((n) => n === 0), JSON.stringify(study.leftover_items_after_down)).toBe(true);
  // The study roles stay for every fleet of the region, as on AWS: listed apart.
  expect(study.kept_in_account?.stacks).toEqual(['volbench-study-roles CREATE_COMPLETE']);
  // Reap found by tag what a `fleet up` killed with SIGKILL made, once its expiry schedule had deleted the stack.
  expect(study.reap?.up_exit).toBe('SIGKILL');
  expect(study.reap?.fired_schedules?.map((f) => f.outcome)).toEqual([expect.stringMatching(/^DeleteStack volbench-vb[0-9a-f]{10}-gp3-8g: sent; the schedule deleted itself/)]);
  expect((study.reap?.found as { parameters: string[] }).parameters.length).toBeGreaterThan(0);
  expect(study.host_load?.cpus).toBeGreaterThan(0);
  expect(study.host_load?.load1.max).toBeGreaterThanOrEqual(study.host_load!.load1.min);
  expect(run.stderr).toMatch(/tests the plumbing end to end, not AWS's model/);
}
