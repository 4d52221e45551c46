/**
 * What a test file needs, declared once on a line of its own, probed here:
 *
 *   const needs = requires('root', 'loop');
 *   describe.skipIf(needs.missing('loop'))('…', () => …);
 *
 * The names are tests/helpers/projects.ts's; the config reads the same line to put the file in its
 * project, and `requires` refuses to run in another one. `needs.missing(…names)` answers why the
 * first of them cannot be had here (each probed once per process), or undefined; a name the line
 * does not declare is refused, so what a file checks is what decides where it runs. With
 * VOLBENCH_NO_SKIP=1 (CI) an unmet requirement fails the file instead of skipping it.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

import { BLKIO_ROOT } from '../harness/blkio.js';
import { DEFAULT_AWSCLI_VENV } from '../harness/sandbox/member-sandbox.js';
import { availableEngines } from '../../src/index.js';
import { projectOf, REQUIREMENTS, type Project, type Requirement } from './projects.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The project this worker runs (each project's config provides it). */
    volbenchProject: Project;
    /** How many files the forks pool runs at once in this run (vitest.config.ts). */
    volbenchForks: number;
    /** The global setup's service of shared fixtures (moto, the tarball, the bundles): its URL; absent in unit. */
    volbenchFixtures?: string;
  }
}

const ROOT = join(import.meta.dirname, '..', '..');
export const CHROMIUM = '/usr/bin/chromium';
export const QEMU = '/usr/bin/qemu-aarch64';
/** statfs(2)'s f_type of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;

const runs = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const engine = (name: string) => (): string | undefined => (availableEngines().includes(name as never) ? undefined : `the kernel refuses the ${name} engine`);
const tool = (cmd: string, args: string[], install: string) => (): string | undefined => (runs(cmd, args) ? undefined : `${cmd} is not installed (${install})`);
const python = (bin: string, module: string, install: string) => (): string | undefined =>
  (runs(bin, ['-c', `import ${module}`]) ? undefined : `${bin} cannot import ${module} (${install})`);

function root(): string | undefined {
  return process.getuid?.() === 0 ? undefined : 'needs root';
}

function tmpfs(): string | undefined {
  try {
    if (statfsSync('/dev/shm').type !== TMPFS_MAGIC) return '/dev/shm is not a tmpfs';
    accessSync('/dev/shm', constants.W_OK);
    return undefined;
  } catch {
    return '/dev/shm is missing or not writable';
  }
}

/** Why each requirement cannot be had here, or undefined: each a function of its own, run at most once. */
const PROBES: Record<Requirement, () => string | undefined> = {
  io_uring: engine('io_uring'),
  libaio: engine('libaio'),
  dist: () => (existsSync(join(ROOT, 'dist', 'cli', 'main.js')) ? undefined : 'dist/ is not built (npm run build:ts)'),
  child: () => undefined,
  serial: () => undefined,
  root,
  tmpfs,
  loop: () => root() ?? (existsSync('/dev/loop-control') ? undefined : 'no /dev/loop-control') ?? tool('losetup', ['--version'], 'util-linux')(),
  mkfs: tool('mkfs.ext4', ['-V'], 'e2fsprogs'),
  fsfreeze: tool('fsfreeze', ['--version'], 'util-linux'),
  prlimit: tool('prlimit', ['--version'], 'util-linux'),
  // Debian's python3-pyfuse3 lives in the distribution's Python (tests/helpers/faultfs.ts runs it).
  fuse: () => root() ?? (existsSync('/dev/fuse') ? undefined : 'no /dev/fuse')
    ?? python(existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3', 'pyfuse3, trio', 'python3-pyfuse3')(),
  fio: tool('fio', ['--version'], 'apt-get install fio'),
  blkio: () => root() ?? (existsSync(join(BLKIO_ROOT, 'blkio.throttle.read_iops_device'))
    ? undefined : `cgroup v1 blkio with the throttle is not mounted at ${BLKIO_ROOT} (CONFIG_BLK_DEV_THROTTLING, a v1 hierarchy)`),
  netns: () => root() ?? tool('ip', ['-V'], 'iproute2')() ?? tool('nft', ['--version'], 'nftables')(),
  moto: python('python3', 'moto.server', ".ci/requirements.txt: pip install 'moto[server]'"),
  awscli: () => (existsSync(join(DEFAULT_AWSCLI_VENV, 'bin', 'aws')) ? undefined
    : `the members' AWS CLI is not installed (tests/harness/install-awscli.sh makes ${DEFAULT_AWSCLI_VENV})`),
  openssl: tool('openssl', ['version'], 'openssl'),
  objdump: tool('objdump', ['--version'], 'binutils'),
  'cfn-lint': tool('cfn-lint', ['--version'], ".ci/requirements.txt: pip install cfn-lint"),
  'cmark-gfm': tool('cmark-gfm', ['--version'], 'apt-get install cmark-gfm'),
  prometheus: python('python3', 'prometheus_client.parser', '.ci/requirements.txt: pip install prometheus-client'),
  chromium: () => (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium)`),
  packaging: tool('npm', ['--version'], 'npm, beside Node'),
  bundle: () => undefined,
  debian: () => root() ?? (runs('unshare', ['--net', 'true']) ? undefined : 'unshare --net is refused here'),
  qemu: () => (existsSync(QEMU) ? undefined : `${QEMU} is missing (apt-get install qemu-user)`) ?? PROBES.debian(),
};

const probed = new Map<Requirement, string | undefined>();

/** Why `name` cannot be had here, or undefined (probed once per process). */
function probe(name: Requirement): string | undefined {
  if (!probed.has(name)) probed.set(name, PROBES[name]());
  return probed.get(name);
}

export interface Needs {
  /** The project the declaration puts the file in. */
  readonly project: Project;
  /**
   * Why the first of `names` (all the declared ones when none is given) cannot be had here, or
   * undefined when all can. Under VOLBENCH_NO_SKIP=1 a reason throws instead.
   */
  missing(...names: Requirement[]): string | undefined;
  /**
   * Why the engine cannot run here, or undefined: io_uring and libaio are requirements (declared,
   * probed); psync, sync and null are plain system calls and always run.
   */
  engine(name: string): string | undefined;
}

/**
 * A test file's needs: call it once, at the top level, on a line of its own with the names as
 * string literals (tests/helpers/projects.ts reads that line).
 */
export function requires(...names: Requirement[]): Needs {
  const project = projectOf(names);
  const running = inject('volbenchProject');
  if (running !== project) {
    throw new Error(`this file declares requires(${names.map((n) => `'${n}'`).join(', ')}), which puts it in the ${project} project, ` +
      `but it runs in ${running ?? 'no project'}: keep the declaration on a line of its own, names as literals, so the config reads it`);
  }
  const forks = inject('volbenchForks');
  if (forks > 1 && project === 'package') {
    throw new Error(`this package file runs one at a time, but this run starts ${forks} test processes at once ` +
      '(VOLBENCH_TEST_FORKS): two at a time, the package files took the CPU their timed tests and the device files need; ' +
      'run the package project without it, as npm test does');
  }
  const declared = new Set(names);
  const needs: Needs = {
    project,
    engine: (name) => (name === 'io_uring' || name === 'libaio' ? needs.missing(name) : undefined),
    missing(...asked) {
      for (const name of asked.length ? asked : names) {
        if (!declared.has(name)) throw new Error(`'${name}' is checked but not declared: add it to this file's requires(…) line (${REQUIREMENTS[name]?.what ?? 'unknown'})`);
        const reason = probe(name);
        if (reason === undefined) continue;
        if (process.env.VOLBENCH_NO_SKIP === '1') throw new Error(`VOLBENCH_NO_SKIP=1 and this file needs ${name}: ${reason}`);
        return reason;
      }
      return undefined;
    },
  };
  return needs;
}
