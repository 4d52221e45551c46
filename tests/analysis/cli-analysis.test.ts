/**
 * The analysis commands in the built CLI: `--format json` is one fio document with the
 * analysis under "volbench", `--format normal` the drvperf-style text; gates set the exit
 * status; refusals exit 2 before any I/O.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { harmonicScore } from '../../src/findings/optimum.js';
import type { VolbenchSweep } from '../../src/fio-output/analysis-sections.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs', 'dist');

const scratch = new ScratchDir('analysis-cli');
afterAll(() => scratch.remove());

const job = (file: string) => [
  `--name=rr`, `--filename=${file}`, '--size=16m', '--rw=randread', '--bs=4k', '--direct=1', '--runtime=150ms', '--time_based',
];

describe('volbench sweep', () => {
  it('prints one fio document with the curve and the optimum the formula gives', async () => {
    const out = await volbench(['sweep', ...job(scratch.path('s.bin')), '--max-depth', '8', '--format', 'json',
      '--assert', 'sweep.optimal_depth >= 1', '--assert', 'sweep.speedup > 0']);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    const sweep = doc.volbench.sweep as VolbenchSweep;
    expect(doc.jobs.map((j: { jobname: string }) => j.jobname)).toEqual(sweep.points.map((p) => `rr-qd${p.value}`));
    const bestIops = Math.max(...sweep.points.map((p) => p.iops));
    const bestLat = Math.min(...sweep.points.map((p) => p.clat_mean_ns));
    const scores = sweep.points.map((p) => harmonicScore(p.iops / bestIops, bestLat / p.clat_mean_ns, 0.8));
    expect(sweep.optimum!.value).toBe(sweep.points[scores.indexOf(Math.max(...scores))].value);
    expect(out.stderr).toMatch(/^volbench sweep: \[1\/4\] iodepth=1: \d+ IOPS, p99 [\d.]+us$/m);
    expect(out.stderr).toContain('volbench: 2 of 2 assertions hold');
  });

  it('prints the curve and the optimum as text, and exits 1 on a failed gate', async () => {
    const out = await volbench(['sweep', ...job(scratch.path('t.bin')), '--max-depth=4', '--alpha=0.5',
      '--assert', 'sweep.optimal_depth >= 1000']);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^sweep over iodepth 1\.\.4 \(alpha 0\.5\): /);
    expect(out.stdout).toMatch(/^depth +IOPS +MiB\/s +clat mean +p50 +p99 +p99\.9 +score$/m);
    expect(out.stdout).toMatch(/^optimal iodepth \d+: \d+ IOPS, [\d.]+x depth 1, latency [\d.]+[mun]?s \(p99 [\d.]+[mun]?s\)$/m);
    expect(out.stderr).toMatch(/FAIL sweep\.optimal_depth >= 1000: measured \d+, wanted >= 1000/);
  });

  it('refuses bad flags with exit 2 before any I/O', async () => {
    const never = scratch.path('never.bin');
    for (const [flags, message] of [
      [['--format', 'yaml'], /--format takes normal or json/],
      [['--over', 'bs'], /--over takes iodepth or numjobs/],
      [['--alpha', '2'], /--alpha takes a number from 0 to 1/],
      [['--iodepth=4'], /sets iodepth itself/],
    ] as const) {
      const out = await volbench(['sweep', ...job(never), ...flags]);
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toMatch(message);
    }
    expect(existsSync(never)).toBe(false);
  });
});

describe('volbench uniformity and rotational', () => {
  it('prints the speed along a file and writes the document with --output', async () => {
    const file = scratch.path('u.bin');
    const text = await volbench(['uniformity', '--filename', file, '--size', '64m', '--chunks', '10', '--probe', '1m']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^uniformity: 10 chunks of 6\.4MiB over 64\.0MiB, read probes of 1\.0MiB$/m);
    // One unit on the screen: MiB and MiB/s, never MB/s; each chunk's speed as it is timed.
    expect(text.stdout).toMatch(/^min [\d.]+MiB\/s at [\d.]+MiB, avg [\d.]+MiB\/s, max [\d.]+MiB\/s at [\d.]+MiB \(max\/min [\d.]+\)$/m);
    expect(text.stdout).toMatch(/^chunk +offset MiB +MiB\/s$/m);
    expect(`${text.stdout}${text.stderr}`).not.toContain('MB/s');
    const progress = text.stderr.split('\n').filter((l) => l.startsWith('volbench uniformity: ['));
    expect(progress.map((l) => /\[(\d+)\/10\]/.exec(l)?.[1])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(progress[1]).toMatch(/^volbench uniformity: \[2\/10\] at 6\.4MiB: [\d.]+MiB\/s$/);
    const output = scratch.path('u.json');
    const json = await volbench(['uniformity', '--filename', file, '--chunks=5', '--probe=1m', '--format=json', '--output', output,
      '--assert', 'uniformity.min_mbps >= 1']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe('');
    const doc = JSON.parse(readFileSync(output, 'utf8'));
    expect(doc.volbench.uniformity.series).toHaveLength(5);
    expect(doc.volbench.assertions[0].passed).toBe(true);
  });

  it('refuses a target that does not say it spins, and unknown flags', async () => {
    const file = scratch.path('r.bin');
    await volbench(['uniformity', '--filename', file, '--size', '4m', '--chunks', '1', '--probe', '1m']);
    const out = await volbench(['rotational', '--filename', file]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/rotational.*--force|force/);
    const bad = await volbench(['uniformity', '--filename', file, '--rw=randread']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("uniformity does not take '--rw=randread'");
    for (const command of ['sweep', 'uniformity', 'rotational']) {
      const help = await volbench([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^  volbench ${command} `, 'm'));
    }
  });
});
