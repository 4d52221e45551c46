/** `volbench catalog`: the list, a price, an entitlement, and bad input naming the field. */
import { describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';

describe('volbench catalog', () => {
  it('lists every type, one line each, EBS first', async () => {
    const out = await volbench(['catalog']);
    expect(out.code, out.stderr).toBe(0);
    const types = out.stdout.trim().split('\n').map((l) => l.split(/\s+/)[1]);
    expect(types.slice(0, 8)).toEqual(['gp3', 'gp2', 'io1', 'io2', 'st1', 'sc1', 'standard', 'instance-store']);
    expect(types).toHaveLength(19);
  });

  it('prices gp3 500 GiB with 6,000 IOPS and 250 MiB/s at $60.00 a month in us-east-1', async () => {
    const out = await volbench(['catalog', 'price', 'gp3', '--size', '500g', '--iops', '6000', '--throughput', '250', '--region', 'us-east-1', '--format', 'json']);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).price).toMatchObject({ storage: 40, iops: 15, throughput: 5, total: 60 });
  });

  it('says what gp2 100 GiB delivers at 4k: the burst, its baseline and how long it lasts', async () => {
    const out = await volbench(['catalog', 'entitled', 'gp2', '--size', '100g', '--bs', '4k']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('3,000 IOPS');
    expect(out.stdout).toContain('from a baseline of 300 (2000 s from a full bucket)');
  });

  it('refuses gp3 with 20,000 IOPS on 10 GiB: "at most 500 IOPS per GiB", with its source', async () => {
    const out = await volbench(['catalog', 'price', 'gp3', '--size', '10g', '--iops', '20000']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/at most 500 IOPS per GiB .*https:\/\/docs\.aws\.amazon\.com/);
    expect(out.stderr).toContain('[--volume.iops]');
    const unknown = await volbench(['catalog', 'show', 'gp4']);
    expect(unknown.stderr).toMatch(/did you mean 'gp3'/);
  });
});
