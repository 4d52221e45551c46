/**
 * What the rehearsal needs of this host, checked before anything starts, one line each: root,
 * cgroup v1 blkio with the throttle, `ip`, `nft`, `losetup`, moto server, the members' AWS CLI,
 * the built CLI and the bundle. A rehearsal that lacked one (a missing `nft` once made a member
 * fail before it could signal, and the study hang) now names it and stops at once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { BLKIO_ROOT } from '../blkio.js';
import { DEFAULT_AWSCLI_VENV } from '../sandbox/member-sandbox.js';

export interface Prerequisite {
  name: string;
  ok: boolean;
  /** What was found, or what to do. */
  detail: string;
}

function tool(name: string, command: string, args: string[], fix: string): Prerequisite {
  const out = spawnSync(command, args, { encoding: 'utf8', timeout: 10_000 });
  if (out.error || out.status !== 0) return { name, ok: false, detail: `not usable (${out.error?.message ?? `exit ${out.status}`}): ${fix}` };
  return { name, ok: true, detail: (out.stdout || out.stderr).trim().split('\n')[0] };
}

/** Every prerequisite, checked (none stops the others from being checked). */
export function checkPrerequisites({ root, bundle, awscliVenv = DEFAULT_AWSCLI_VENV }: { root: string; bundle: string; awscliVenv?: string }): Prerequisite[] {
  const checks: Prerequisite[] = [];
  checks.push(process.getuid?.() === 0 ? { name: 'root', ok: true, detail: 'uid 0' } : { name: 'root', ok: false, detail: 'run as root (loop devices, namespaces, cgroups)' });
  const throttle = join(BLKIO_ROOT, 'blkio.throttle.read_iops_device');
  checks.push(existsSync(throttle) ? { name: 'blkio', ok: true, detail: `cgroup v1 blkio throttle at ${BLKIO_ROOT}` }
    : { name: 'blkio', ok: false, detail: `${throttle} is missing: a cgroup v1 blkio hierarchy with the throttle (CONFIG_BLK_DEV_THROTTLING)` });
  checks.push(tool('ip', 'ip', ['-V'], 'apt-get install iproute2'));
  checks.push(tool('nft', 'nft', ['--version'], 'apt-get install nftables'));
  checks.push(tool('losetup', 'losetup', ['--version'], 'apt-get install mount (util-linux)'));
  const moto = tool('moto', 'python3', ['-c', 'import moto.server; print("python3 -m moto.server")'], ".ci/requirements.txt: pip install 'moto[server]'");
  checks.push(moto);
  const aws = join(awscliVenv, 'bin', 'aws');
  checks.push(existsSync(aws) ? tool('awscli', aws, ['--version'], 'tests/harness/install-awscli.sh') : { name: 'awscli', ok: false, detail: `${aws} is missing: run tests/harness/install-awscli.sh` });
  const cli = join(root, 'dist', 'cli', 'main.js');
  checks.push({ name: 'cli', ok: existsSync(cli), detail: existsSync(cli) ? cli : `${cli} is missing: npm run build:ts` });
  checks.push({ name: 'bundle', ok: existsSync(bundle), detail: existsSync(bundle) ? bundle : `${bundle} is missing: npm run bundle -- --arch x64, or --package FILE` });
  return checks;
}
