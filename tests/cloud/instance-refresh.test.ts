/**
 * `volbench catalog refresh --instances --region R`: EC2 DescribeInstanceTypes (here as moto
 * serves AWS's data) written as the instance limits file, dated and sourced: more than 1,000
 * types where the hand-copied file had 49, m6i.large at 650 / 10,000 Mbps and 3,600 / 40,000
 * IOPS with its 30 minutes a day, instance store IOPS kept from AWS's page where the file had
 * them, and each type's platform: its hypervisor (io1/io2 pass 32,000 IOPS only on Nitro), NVMe and
 * EBS-optimized support. The shipped file is that output for moto 5.2.5.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { entitlement, instanceCatalogFrom, loadInstancePrices, loadInstances, parseVolume, refreshSource } from '../../src/cloud/index.js';
import { InstanceCatalog } from '../../src/cloud/schema.js';
import { volbench } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'moto');

const skip = needs.missing('moto');
const dir = mkdtempSync(join(tmpdir(), 'volbench-instances-'));
let moto: Moto | undefined;

beforeAll(async () => {
  if (!skip) moto = await freshMoto();
}, 30_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)(`catalog refresh --instances against moto${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('writes more than 1,000 types, m6i.large with 650 / 10,000 Mbps and 3,600 / 40,000 IOPS', async () => {
    const out = join(dir, 'instances.json');
    const res = await volbench(['catalog', 'refresh', '--instances', '--region', 'us-east-1', '--out', out], undefined, { ...process.env, ...moto!.env });
    expect(res.code, res.stderr).toBe(0);
    const file = InstanceCatalog.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(file.instances.length).toBeGreaterThan(1000);
    expect(res.stderr).toContain(`${file.instances.length} instance types from ec2:DescribeInstanceTypes in us-east-1`);
    // Not AWS's own endpoint: a secondary source, named, at M.
    expect(file.confidence).toBe('M');
    expect(file.source).toContain(`as served by ${moto!.endpoint}`);
    const m6i = file.instances.find((i) => i.type === 'm6i.large')!;
    expect(m6i.ebs).toMatchObject({ baseline_mbps: 650, max_mbps: 10000, baseline_iops: 3600, max_iops: 40000, burst: { minutes_per_day: 30 }, confidence: 'M' });
    expect(m6i.architectures).toEqual(['x86_64']);
    expect(m6i.hypervisor).toBe('nitro');
    expect(m6i.ebs).toMatchObject({ nvme_support: 'required', ebs_optimized_support: 'default' });
    const m4 = file.instances.find((i) => i.type === 'm4.large')!;
    expect(m4.hypervisor).toBe('xen');
    expect(m4.ebs).toMatchObject({ nvme_support: 'unsupported', ebs_optimized_support: 'default' });
    expect(m6i.instance_store).toBeUndefined();
    // A type without EBS limits keeps its platform, so a fleet can refuse it by name (t2: no EBS optimization).
    expect(file.instances.find((i) => i.type === 't2.micro')).toBeUndefined();
    expect(file.platform_only).toContainEqual({ type: 't2.micro', hypervisor: 'xen', nvme_support: 'unsupported', ebs_optimized_support: 'unsupported', architectures: ['i386', 'x86_64'] });
    // A size at its maximum all day does not burst.
    expect(file.instances.find((i) => i.type === 'm5.4xlarge')!.ebs.burst).toBeUndefined();
    // Instance store: devices from the API, IOPS kept from AWS's page with that page as source.
    const i4i = file.instances.find((i) => i.type === 'i4i.xlarge')!.instance_store!;
    expect(i4i).toMatchObject({ devices: 1, gb_per_device: 937, media: 'ssd', random_read_iops_4k: 62500 });
    expect(i4i.source).toMatch(/^https:\/\/docs\.aws\.amazon\.com\//);
    // The --source a shipped file is made with names the stand-in's version, at M.
    expect(refreshSource('us-east-1', 'AWS DescribeInstanceTypes as served by moto 5.2.5')).toEqual({ source: 'AWS DescribeInstanceTypes as served by moto 5.2.5', confidence: 'M' });
  }, 120_000);

  it('refuses a bad region or date before asking the API', async () => {
    const region = await volbench(['catalog', 'refresh', '--instances', '--region', 'mars-1'], undefined, { ...process.env, ...moto!.env });
    expect(region.code).toBe(2);
    expect(region.stderr).toMatch(/'mars-1' is not an AWS region/);
    const date = await volbench(['catalog', 'refresh', '--instances', '--region', 'us-east-1', '--as-of', 'yesterday'], undefined, { ...process.env, ...moto!.env });
    expect(date.code).toBe(2);
    expect(date.stderr).toMatch(/--as-of 'yesterday' is not a date/);
    const what = await volbench(['catalog', 'refresh', '--region', 'us-east-1']);
    expect(what.code).toBe(2);
    expect(what.stderr).toMatch(/what to refresh\? --instances/);
  });
});

describe('the shipped instance limits', () => {
  it("are DescribeInstanceTypes as moto 5.2.5 serves it, dated, at M", () => {
    const text = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'catalog', 'aws-ec2-instances.json'), 'utf8'));
    const file = InstanceCatalog.parse(text);
    expect(file).toMatchObject({ source: 'AWS DescribeInstanceTypes as served by moto 5.2.5', as_of: '2026-11-29', confidence: 'M' });
    // The platform, for the 32,000 IOPS cap and for plans that need Nitro: every Xen type says so.
    expect(loadInstances().filter((i) => i.hypervisor === 'xen').map((i) => i.type.split('.')[0]))
      .toEqual(expect.arrayContaining(['m4', 'c4', 'r4', 'i3', 'x1', 'd2', 'h1']));
    expect(loadInstances().find((i) => i.type === 'm6i.large')!.hypervisor).toBe('nitro');
    expect(loadInstances().length).toBeGreaterThan(1000);
    expect(loadInstances().find((i) => i.type === 'm6i.large')!.ebs).toMatchObject({ baseline_mbps: 650, max_mbps: 10000, baseline_iops: 3600, max_iops: 40000 });
    // Prices are their own file, and every priced type has limits.
    const limited = new Set(loadInstances().map((i) => i.type));
    for (const types of Object.values(loadInstancePrices().regions)) {
      for (const t of Object.keys(types)) expect(limited.has(t), t).toBe(true);
    }
  });

  it('instance store on a type whose IOPS AWS states nowhere the catalog read has no entitlement, said so', () => {
    const withoutIops = loadInstances().find((i) => i.instance_store && i.instance_store.random_read_iops_4k === undefined)!;
    expect(withoutIops).toBeDefined();
    const err = errorOf(() => entitlement(parseVolume('instance-store'), { bs: 4096, instance: withoutIops.type }));
    expect(err.code).toBe('EVOLUME_PLACEMENT');
    expect(err.message).toContain(`no instance store IOPS for ${withoutIops.type}`);
  });

  it('a type the API gives without EBS-optimized limits is left out, and none at all is an error', () => {
    const dated = { source: 'test', as_of: '2026-01-01', confidence: 'M' as const };
    const r = instanceCatalogFrom([{ InstanceType: 't1.micro', EbsInfo: {} }, {
      InstanceType: 'x9.large', EbsInfo: { EbsOptimizedInfo: { BaselineBandwidthInMbps: 100, MaximumBandwidthInMbps: 100, BaselineIops: 10, MaximumIops: 10 } },
    }], [], dated);
    expect(r.skipped).toEqual(['t1.micro']);
    expect(r.file.instances.map((i) => i.type)).toEqual(['x9.large']);
    expect(errorOf(() => instanceCatalogFrom([{ InstanceType: 't1.micro' }], [], dated)).code).toBe('ECLOUD');
  });
});
