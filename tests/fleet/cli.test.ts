/**
 * `volbench fleet` refuses before it creates anything: a study over --max-cost, a volume it
 * cannot create, no region, a flag the subcommand does not take; and `fleet plan` needs no AWS
 * at all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child');

const stateDir = mkdtempSync(join(tmpdir(), 'volbench-fleet-cli-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

// No credentials and an endpoint nothing listens on: any AWS call would fail, so none may happen.
const offline = ['--region', 'us-east-1', '--state-dir', stateDir];

describe('volbench fleet', () => {
  it('plan prints the volumes, the stacks and the estimate without calling AWS', async () => {
    const out = await volbench(['fleet', 'plan', '--volumes', 'gp3:500g,st1:2t', '--instance', 'm6i.large', ...offline]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/\| gp3-500g \| gp3 \| 500 GiB \|/);
    expect(out.stdout).toMatch(/estimated cost of the study: \$/);
  });

  it('refuses a study above --max-cost before creating anything, naming the flag', async () => {
    const out = await volbench(['fleet', 'up', '--volumes', 'io2:16t:iops=64000', '--max-cost', '1', '--bucket', 'b', '--allowed-cidr', '10.0.0.1/32', ...offline]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/estimated at \$\d+\.\d\d, above --max-cost \$1\.00; pass --yes/);
    expect(out.stderr).toContain('[--max-cost]');
  });

  it('refuses a volume it cannot create, and a missing region, before anything', async () => {
    const bad = await volbench(['fleet', 'up', '--volumes', 'gp3:100g:iops=abc', '--bucket', 'b', ...offline]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('[--volumes[0].iops]');
    const noRegion = await volbench(['fleet', 'plan', '--volumes', 'gp3:100g', '--state-dir', stateDir], undefined);
    expect(noRegion.code).toBe(2);
  });

  it('refuses a flag the subcommand does not take, naming it and listing its own', async () => {
    const out = await volbench(['fleet', 'plan', '--volumes', 'gp3:100g', '--keep', ...offline]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('fleet plan does not take --keep [--keep]');
    expect(out.stderr).toMatch(/accepted: --volumes, .*--strict, .*--check-account, --region/);
  });

  it('compare: autonomous members take no --endpoint-map (it is --interactive\'s), and attach and status need the bucket', async () => {
    const map = await volbench(['fleet', 'compare', '--volumes', 'gp3:100g', '--bucket', 'b', '--endpoint-map', '/nonexistent.json', '--yes', ...offline]);
    expect(map.code).toBe(2);
    expect(map.stderr).toMatch(/--endpoint-map reaches members over HTTPS: give --interactive with it.*\[--endpoint-map\]/);
    for (const sub of ['attach', 'status']) {
      const out = await volbench(['fleet', sub, 'vb0000000000', ...offline]);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('[--bucket]');
    }
    const bad = await volbench(['fleet', 'attach', '../x', '--bucket', 'b', ...offline]);
    expect(bad.stderr).toMatch(/is not a fleet id/);
  });

  it('down and run name the fleet they do not know', async () => {
    const out = await volbench(['fleet', 'down', 'vb0000000000', ...offline]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/no state for fleet vb0000000000/);
    const bad = await volbench(['fleet', 'down', '../../etc', ...offline]);
    expect(bad.stderr).toMatch(/is not a fleet id/);
  });
});
