/**
 * `cpus_allowed` and `cpus_allowed_policy`: a job's threads run on the CPUs given, all of them
 * (shared) or one each (split), as fio's. At queue depth 1 on a virtio disk whose interrupts land
 * on one CPU, a thread on that CPU completes I/Os in 74–78 µs and one on the other in 109–140 µs
 * (same for fio and volbench): without pinning, where the scheduler puts the thread decides a
 * run's latency, so comparing two tools or two volumes at QD1 needs this option.
 *
 * Broke: volbench refused both options as unsupported.
 * Expected: fio's list syntax and policies; a CPU the machine lacks refused before any I/O, as
 * fio refuses it; the thread pinned while it runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { parseSpec } from '../../src/jobspec/index.js';
import { formatCpuList, parseCpuList } from '../../src/jobspec/cpu-list.js';
import { planRun } from '../../src/plan/index.js';
import type { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';
import { thrownVolbenchError } from '../helpers/run-fixtures.js';
import { makeWorkspace, runFio, titled } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

/** Cpus_allowed_list of each of this process's threads, by thread id. */
function threadCpus(): Map<number, string> {
  const out = new Map<number, string>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/self/task/${tid}/status`, 'utf8'));
      if (m) out.set(Number(tid), m[1]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Runs `spec` while watching which threads are pinned to which CPU lists; returns the lists seen on the run's job threads. */
async function pinnedDuring(spec: Parameters<typeof runJobs>[0]): Promise<{ lists: Map<number, string>; result: Awaited<ReturnType<typeof runJobs>> }> {
  const before = new Set(threadCpus().keys());
  const lists = new Map<number, string>();
  const timer = setInterval(() => {
    for (const [tid, list] of threadCpus()) if (!before.has(tid)) lists.set(tid, list);
  }, 20);
  try {
    const result = await runJobs(spec);
    return { lists, result };
  } finally {
    clearInterval(timer);
  }
}

describe('cpus_allowed: the list', () => {
  it("reads fio's syntax: numbers and ranges, each CPU once, in order", () => {
    expect(parseCpuList('1', 'cpus_allowed')).toEqual([1]);
    expect(parseCpuList('3,0-2, 2', 'cpus_allowed')).toEqual([0, 1, 2, 3]);
    expect(formatCpuList([0, 1, 2, 3, 6, 8, 9])).toBe('0-3,6,8,9');
    expect(parseCpuList(formatCpuList([0, 1, 2, 3, 6, 8, 9]), 'x')).toEqual([0, 1, 2, 3, 6, 8, 9]);
  });

  it('refuses what is not a list, naming the option and what it takes', () => {
    for (const bad of ['x', '1-', '3-1', '0,,1', '2000', '-1']) {
      const err = thrownVolbenchError(() => parseSpec({ jobs: [{ name: 'j', cpus_allowed: bad }] }));
      expect(err.code, bad).toBe('EINVALID_VALUE');
      expect(err.field, bad).toBe('jobs[0].cpus_allowed');
      expect(String(err.accepted), bad).toMatch(/ranges/);
    }
    // Length is capped before the text is read; up to the cap, every CPU at most once.
    const long = Array(1200).fill('0-1023').join(',');
    expect(parseCpuList(long.slice(0, 8190).replace(/,[^,]*$/, ''), 'cpus_allowed')).toHaveLength(1024);
    expect(thrownVolbenchError(() => parseCpuList(long, 'cpus_allowed')).message).toMatch(/more than 8192/);
    const policy = thrownVolbenchError(() => parseSpec({ jobs: [{ name: 'j', cpus_allowed_policy: 'spread' }] }));
    expect(policy.field).toBe('jobs[0].cpus_allowed_policy');
  });

  it('refuses, before any I/O, a CPU the machine does not have', async () => {
    const n = cpus().length;
    const err = await planRun(parseSpec({ jobs: [{ name: 'j', ioengine: 'null', size: '1m', cpus_allowed: `0,${n}` }] }))
      .then(() => undefined, (e: unknown) => e as VolbenchError);
    expect(err?.code).toBe('EINVALID_PLAN');
    expect(err?.field).toBe('jobs[0].cpus_allowed');
  });
});

const fioMissing = needs.missing('fio');
describe.skipIf(fioMissing !== undefined)(titled('cpus_allowed: fio refuses the same CPU', fioMissing), () => {
  it('a CPU past the last is an error in fio too', async () => {
    const ws = makeWorkspace('memory', 'cpus');
    try {
      const failed = await runFio(['--name=j', '--ioengine=null', '--size=1m', `--cpus_allowed=${cpus().length}`, '--output-format=json'], ws.fioDir)
        .then(() => false, () => true);
      expect(failed).toBe(true);
    } finally {
      ws.remove();
    }
  });
});

const two = cpus().length >= 2 ? undefined : 'the machine has one CPU';
describe.skipIf(two !== undefined)(titled('cpus_allowed: the job threads run where they are told', two), () => {
  const job = { name: 'pin', ioengine: 'null', size: '1g', rw: 'randread', bs: '4k', time_based: true, runtime: '600ms' };

  it('shared: every instance on the whole list', async () => {
    const { lists, result } = await pinnedDuring({ jobs: [{ ...job, numjobs: 2, cpus_allowed: '1' }] });
    expect(result.jobs.every((j) => j.error === 0)).toBe(true);
    expect([...lists.values()].filter((l) => l === '1')).toHaveLength(2);
  });

  it("split: one CPU each, in fio's order, wrapping round", async () => {
    const { lists, result } = await pinnedDuring({ jobs: [{ ...job, numjobs: 3, cpus_allowed: '0-1', cpus_allowed_policy: 'split' }] });
    expect(result.jobs.every((j) => j.error === 0)).toBe(true);
    const seen = [...lists.values()].filter((l) => l === '0' || l === '1').sort();
    expect(seen).toEqual(['0', '0', '1']);
  });

  it("split numbers instances across the run, as fio's thread numbers: job b's one instance comes after job a's two", async () => {
    const split = { ioengine: 'null', size: '1m', cpus_allowed: '0-1', cpus_allowed_policy: 'split' };
    const p = await planRun(parseSpec({ jobs: [{ name: 'a', numjobs: 2, ...split }, { name: 'b', ...split }] }));
    try {
      expect(p.jobs.map((j) => j.instances.map((i) => i.cpus))).toEqual([[[0], [1]], [[0]]]);
    } finally {
      p.release();
    }
  });

  it('without the option, no thread of the run is pinned', async () => {
    const all = readFileSync('/proc/self/status', 'utf8').match(/^Cpus_allowed_list:\s*(\S+)/m)?.[1];
    const { lists } = await pinnedDuring({ jobs: [{ ...job, numjobs: 2 }] });
    expect(lists.size).toBeGreaterThan(0);
    for (const list of lists.values()) expect(list).toBe(all);
  });
});
