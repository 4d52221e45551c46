/**
 * `--volume` in the terminal: the normal text prints, per job, what the named volume allows it
 * (`entitled :` with the expected IOPS and MiB/s, measured/expected and bound_by), and the
 * suite's table a column for it; a figure above 1.10× the volume's is flagged with its likely
 * cause. Real runs on tmpfs, which no gp3 matches: the flag must show.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs');

const dir = mkdtempSync(join('/dev/shm', 'volbench-entitled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const JOB = ['--name', 'rr', '--rw', 'randread', '--bs', '4k', '--size', '8m', '--runtime', '300ms', '--time_based', '--direct', '1'];

describe('entitlement in the terminal', () => {
  it('run --volume prints an entitled line per job; without a volume there is none', async () => {
    const out = await volbench(['run', ...JOB, '--filename', join(dir, 'run'), '--volume', 'gp3:100g']);
    expect(out.code, out.stderr).toBe(0);
    const line = out.stdout.split('\n').find((l) => l.startsWith('  entitled     : '));
    // gp3's baseline: 3,000 IOPS, 3,000 × 4 KiB = 11.7 MiB/s at this size; tmpfs does far more.
    expect(line).toMatch(/^ {2}entitled {5}: 3,000 IOPS, 11\.7 MiB\/s at bs=4096; measured\/entitled=\d+\.\d\d ⚑ \(not the named volume\); bound_by=volume-iops$/);
    const plain = await volbench(['run', ...JOB, '--filename', join(dir, 'plain')]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('entitled');
  });

  it('the suite table gains a measured/entitled column with what bound each test', async () => {
    const out = await volbench(['suite', 'kdiskmark', '--directory', dir, '--runtime', '200ms', '--size', '8m', '--loops', '1',
      '--volume', 'gp3:100g', '--output', join(dir, 'suite.txt')]);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stderr.split('\n');
    const header = lines.findIndex((l) => l.startsWith('test '));
    expect(lines[header]).toMatch(/ meas\/entitled$/);
    const rows = lines.slice(header + 1, header + 9);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual([
      'SEQ1M-Q8T1-read', 'SEQ1M-Q1T1-read', 'RND4K-Q32T1-read', 'RND4K-Q1T1-read',
      'SEQ1M-Q8T1-write', 'SEQ1M-Q1T1-write', 'RND4K-Q32T1-write', 'RND4K-Q1T1-write',
    ]);
    // Large sequential blocks are bound by gp3's 125 MiB/s, 4 KiB random ones by its 3,000 IOPS.
    expect(rows[0]).toMatch(/ \d+\.\d\d× volume-throughput( ⚑)?$/);
    expect(rows[2]).toMatch(/ \d+\.\d\d× volume-iops( ⚑)?$/);
    expect(lines.slice(header + 9).join('\n')).toContain('⚑ above 1.10× what the volume allows');
  });
});
