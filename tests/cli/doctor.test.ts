/**
 * `volbench doctor` on this machine: a line per thing looked at, ok / warn / fail with what to
 * do, exit 0 when none fails. A missing data directory, or no AWS credentials without --aws, is
 * a warning; --aws asks AWS itself (moto here) through the standard credential chain.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs', 'moto');

const scratch = new ScratchDir('doctor');
const home = mkdtempSync(join(tmpdir(), `volbench-doctor-home-${process.pid}-`));
afterAll(() => {
  scratch.remove();
  rmSync(home, { recursive: true, force: true });
});

/** A user with no AWS configuration: a home of its own, only what Node and TLS need kept. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'VOLBENCH_CACHE'];
  const env: NodeJS.ProcessEnv = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  // The credential chain must not look for an instance role off this machine.
  return { ...env, HOME: home, AWS_EC2_METADATA_DISABLED: 'true', ...extra };
}

const line = (out: string, subject: string): string | undefined => out.split('\n').find((l) => new RegExp(`^(ok  |warn|FAIL)  ${subject}  `).test(l));

describe('volbench doctor', () => {
  it('exits 0 here, naming the Node version, the addon and io_uring; a missing data directory and no AWS are warnings', async () => {
    const out = await volbench(['doctor', '--directory', scratch.dir, '--data-dir', join(home, 'no-such-dir')], undefined, bareEnv());
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(line(out.stdout, 'Node.js')).toBe(`ok    Node.js         ${process.versions.node} (volbench needs 22.16 or newer)`);
    expect(line(out.stdout, 'addon')).toMatch(/^ok {4}addon {11}(prebuilt|built from source|VOLBENCH_ADDON), \/\S+\.node: /);
    expect(line(out.stdout, 'io_uring')).toMatch(/^(ok {4}io_uring {8}available \(probed|warn {2}io_uring {8}not available)/);
    expect(line(out.stdout, 'O_DIRECT')).toBe(`ok    O_DIRECT        works on ${scratch.dir} (tmpfs)`);
    expect(line(out.stdout, 'free space')).toMatch(new RegExp(`^ok {4}free space {6}\\d+\\w+ on ${scratch.dir}$`));
    expect(line(out.stdout, 'data directory')).toMatch(/^warn {2}data directory {2}.*no-such-dir does not exist yet$/);
    expect(out.stdout).toContain('→ volbench serve creates it (mode 0700) on first start');
    expect(line(out.stdout, 'AWS')).toMatch(/^warn {2}AWS {13}no credentials configured/);
    expect(out.stdout).toMatch(/volbench can run here \(\d+ to look at\)\n$/);
  });

  it('fails on a data directory others may write, as serve refuses it, and on one that is no directory (exit 1)', async () => {
    const open = join(home, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const loose = await volbench(['doctor', '--directory', scratch.dir, '--data-dir', open], undefined, bareEnv());
    expect(loose.code).toBe(1);
    expect(line(loose.stdout, 'data directory')).toBe(`FAIL  data directory  ${open} is writable by others (mode 777): serve refuses it, since they could replace the token or the database`);
    const file = join(home, 'a-file');
    writeFileSync(file, '');
    const failed = await volbench(['doctor', '--directory', scratch.dir, '--data-dir', file], undefined, bareEnv());
    expect(failed.code).toBe(1);
    expect(line(failed.stdout, 'data directory')).toBe(`FAIL  data directory  ${file} is not a directory`);
    expect(failed.stdout).toMatch(/^1 failed, \d+ to look at$/m);
  });

  it('refuses an unknown flag with exit 2', async () => {
    const out = await volbench(['doctor', '--bogus'], undefined, bareEnv());
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("doctor: Unknown option '--bogus'");
  });
});

describe.skipIf(needs.missing('moto') !== undefined)('volbench doctor --aws', () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await freshMoto('eu-west-1');
  });

  it('names the region and whose credentials they are, as STS says', async () => {
    const out = await volbench(['doctor', '--directory', scratch.dir, '--aws'], undefined, bareEnv(moto.env));
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(line(out.stdout, 'AWS region')).toBe('ok    AWS region      eu-west-1');
    expect(line(out.stdout, 'AWS')).toMatch(/^ok {4}AWS {13}credentials of arn:aws:\S+ \(account \d{12}\)$/);
  });

  it('fails (exit 1) when the chain finds no credentials, and without a region', async () => {
    const none = await volbench(['doctor', '--directory', scratch.dir, '--aws'], undefined, bareEnv({ AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL: moto.endpoint }));
    expect(none.code).toBe(1);
    expect(line(none.stdout, 'AWS')).toMatch(/^FAIL {2}AWS {13}sts:GetCallerIdentity: no AWS credentials/);
    const noRegion = await volbench(['doctor', '--directory', scratch.dir, '--aws'], undefined, bareEnv({ AWS_ENDPOINT_URL: moto.endpoint }));
    expect(noRegion.code).toBe(1);
    expect(line(noRegion.stdout, 'AWS region')).toBe('FAIL  AWS region      no region: give --region or set AWS_REGION');
  });
});
