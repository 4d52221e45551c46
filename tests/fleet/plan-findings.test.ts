/**
 * `fleet plan` says what it knows: per volume, what each test of its suite should reach
 * (entitled IOPS and MiB/s, the limit that binds, what follows the instance's 30 minutes), and
 * one line per finding: the instance's EBS baseline under what the volume delivers; a suite
 * whose block size cannot reach the throughput paid for; an HDD volume on an SSD suite named
 * explicitly. `--strict` refuses a plan with any. A type with limits but no price is estimated
 * without the instance, said so. Before, the plan printed prices and names only.
 */
import { describe, expect, it } from 'vitest';

import { fleetVolumes, formatPlan, planFleet } from '../../src/fleet/index.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child');

const STUDY = 'gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2048g';
const plan = (volumes: string, instanceType = 'm6i.large', suite?: string) =>
  planFleet({ volumes: fleetVolumes(volumes, instanceType), instanceType, region: 'us-east-1', ...(suite ? { suite } : {}) });

describe('fleet plan: entitled per test, and findings', () => {
  it("the four-volume study on m6i.large (suite auto): each test entitled, gp3 6000/250, io2 16,000 and st1's 500 MiB/s past the instance's baseline", () => {
    const p = plan(STUDY);
    expect(p.members.map((m) => m.tests?.map((t) => [t.test, t.iops, t.bound_by]))).toEqual([
      [['RND16K-Q1T16-write', 3000, 'volume-iops'], ['RND16K-Q1T16-read', 3000, 'volume-iops']],
      [['RND16K-Q1T16-write', 6000, 'volume-iops'], ['RND16K-Q1T16-read', 6000, 'volume-iops']],
      [['RND16K-Q1T16-write', 16000, 'volume-iops'], ['RND16K-Q1T16-read', 16000, 'volume-iops']],
      // st1 runs aws-hdd under auto: 500 I/Os of its counted 1 MiB, a tie its 500 MiB/s binds (an HDD's bytes bind).
      [['SEQ1M-Q8T1-read', 500, 'volume-throughput'], ['SEQ1M-Q8T1-write', 500, 'volume-throughput']],
    ]);
    // m6i.large falls to 3,600 IOPS after its 30 minutes: 56.25 MiB/s at 16 KiB.
    expect(p.members[1].tests![0].after_instance_burst).toEqual({ seconds: 1800, iops: 3600, mibps: 56.25 });
    expect(p.members[0].tests![0].after_instance_burst).toBeUndefined();
    expect(p.findings.map((f) => [f.kind, f.label])).toEqual([
      ['instance-baseline', 'gp3-500g-6000iops-250mibs'],
      ['block-size', 'gp3-500g-6000iops-250mibs'],
      ['instance-baseline', 'io2-500g-16000iops'],
      ['instance-baseline', 'st1-2t'],
    ]);
    expect(p.findings[1].message).toBe('suite aws-ssd at 16 KiB reaches at most 93.75 MiB/s on gp3-500g-6000iops-250mibs (RND16K-Q1T16-write, volume-iops): '
      + 'the 250 MiB/s paid for (125 above the included 125) goes unused');
    const text = formatPlan(p);
    expect(text).toContain('| gp3-500g-6000iops-250mibs | RND16K-Q1T16-read | 16 KiB randread | 6,000 | 93.75 | volume-iops | 3,600 IOPS, 56.25 MiB/s |');
    expect(text).toMatch(/^finding instance-baseline: m6i.large's EBS baseline \(650 Mbps, 3,600 IOPS\) is below what io2-500g-16000iops delivers/m);
  });

  it('an HDD volume on an SSD suite is a finding only when the suite was named', () => {
    // auto gives st1 aws-hdd: no suite finding (its 500 MiB/s is past m6i.large's baseline, another one).
    expect(plan('st1:2048g').findings.map((f) => f.kind)).toEqual(['instance-baseline']);
    expect(plan('st1:2048g', 'm6i.large', 'aws-ssd').findings.map((f) => f.kind)).toEqual(['hdd-on-ssd-suite']);
    expect(plan('st1:2048g:suite=aws-ssd').findings.map((f) => f.kind)).toEqual(['hdd-on-ssd-suite']);
    expect(plan('st1:2048g', 'm6i.large', 'aws-hdd').findings.map((f) => f.kind)).not.toContain('hdd-on-ssd-suite');
  });

  it('a type with limits and no price: the estimate leaves the instances out, said so, with the volumes alone', () => {
    const p = plan('gp3:500g', 'm6i.8xlarge');
    expect(p.estimatedUsd).toBeUndefined();
    expect(p.volumesOnlyUsd).toBeGreaterThan(0);
    expect(p.warnings).toContain('no price known for m6i.8xlarge: the estimate leaves the instances out');
    expect(formatPlan(p)).toContain(`without the instances (no price for m6i.8xlarge): $${p.volumesOnlyUsd!.toFixed(2)} for the volumes alone`);
  });
});

describe('fleet plan --strict', () => {
  it('refuses a plan with findings, exit 2, naming each; passes one without', async () => {
    const bad = await volbench(['fleet', 'plan', '--volumes', STUDY, '--instance', 'm6i.large', '--region', 'us-east-1', '--strict']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--strict and 4 findings: instance-baseline \(gp3-500g-6000iops-250mibs\)/);
    expect(bad.stderr).toContain('block-size (gp3-500g-6000iops-250mibs)');
    const good = await volbench(['fleet', 'plan', '--volumes', 'gp3:500g', '--instance', 'm6i.large', '--region', 'us-east-1', '--strict']);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('| gp3-500g | RND16K-Q1T16-read | 16 KiB randread | 3,000 | 46.88 | volume-iops |  |');
  });
});

/*
 * Broke: block-size blamed the suite's I/O size wherever the best test fell short of the
 * throughput paid for, even when the instance held it (gp3 1,000 MiB/s on m5.large: kdiskmark's
 * 1 MiB reaches the instance's ~566 MiB/s). Expected: block-size only where the volume's IOPS
 * bind; an instance bound is the instance's finding.
 */
describe('block-size is the block size only where the volume IOPS bind', () => {
  it('gp3 1,000 MiB/s on m5.large with kdiskmark: held by the instance, no block-size finding', () => {
    const p = plan('gp3:1000g:iops=4000:throughput=1000', 'm5.large', 'kdiskmark');
    const seq = p.members[0].tests!.find((t) => t.test.startsWith('SEQ1M'))!;
    expect(seq.bound_by).toBe('instance-bandwidth');
    expect(p.findings.map((f) => f.kind)).not.toContain('block-size');
  });
});
