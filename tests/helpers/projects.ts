/**
 * What a test file needs decides where it runs. Every test file states its needs on one line,
 * the way fio's test runner lists each test's requirements and moto marks its tests:
 *
 *   const needs = requires('root', 'loop');      (or `requires();` for a file that needs nothing)
 *
 * The config reads that line as text before any test runs (tests/helpers/requires.ts checks it
 * again at run time, and probes each requirement), and the requirement that asks the most
 * decides the project:
 *
 * - unit: nothing of the machine (no device, no root, no child process): files run in parallel,
 *   not isolated from each other.
 * - service: child processes, tmpfs, moto, the tools (openssl, cfn-lint, chromium, …): files that wait
 *   on processes, sockets and timers more than on the CPU, two at a time, each in a fresh process;
 *   nothing they assert depends on time or on a device another file could touch.
 * - device: root, loop devices, mounts, fio, the blkio throttle, namespaces, and every file
 *   that declares `serial` (it measures time, a rate, a latency or a stall bound): one file at a
 *   time, one after another in one process, after the service files.
 * - package: the packed tarball installed, the bundles, qemu, the Lambda zips, the rehearsal and
 *   the members it boots (awscli): one file at a time, beside the device files.
 *
 * This module is plain data and text reading, so vitest.config.ts can import it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const PROJECTS = ['unit', 'service', 'device', 'package'] as const;
export type Project = (typeof PROJECTS)[number];

interface RequirementInfo {
  /** The project a file that needs it runs in (the one that asks the most wins). */
  project: Project;
  /** What it is, for docs/testing.md and for a skip's reason. */
  what: string;
}

export const REQUIREMENTS = {
  io_uring: { project: 'unit', what: 'the kernel sets up an io_uring ring for the engine' },
  libaio: { project: 'unit', what: 'the kernel sets up a Linux AIO context for the engine' },
  dist: { project: 'unit', what: 'dist/ built from src/ (npm run build:ts), for what loads the built package' },
  child: { project: 'service', what: 'starts processes: the CLI, a server, a script, a tool' },
  serial: { project: 'device', what: 'results another file running at the same time would disturb: elapsed time, a rate, a latency, an ETA, a stall bound' },
  root: { project: 'device', what: 'runs as root: mounts, cgroups, device nodes' },
  tmpfs: { project: 'service', what: '/dev/shm, a tmpfs that takes O_DIRECT, for real I/O in memory' },
  loop: { project: 'device', what: 'loop devices of its own (root, losetup)' },
  mkfs: { project: 'device', what: 'mkfs.ext4 (e2fsprogs), for filesystems on its loop devices' },
  fsfreeze: { project: 'device', what: 'fsfreeze (util-linux), to freeze a mounted filesystem' },
  prlimit: { project: 'service', what: 'prlimit (util-linux), to start a process with fewer file descriptors' },
  fuse: { project: 'device', what: "a FUSE filesystem of its own (root, /dev/fuse, Debian's python3-pyfuse3)" },
  fio: { project: 'device', what: 'fio on PATH (apt-get install fio)' },
  blkio: { project: 'device', what: "the kernel's block throttle: a cgroup v1 blkio hierarchy, root" },
  netns: { project: 'device', what: 'network namespaces of its own with nftables inside (root, iproute2, nftables)' },
  moto: { project: 'service', what: 'moto server, the AWS emulator: one per worker process, reset before each file' },
  awscli: { project: 'package', what: "the rehearsal members' AWS CLI (tests/harness/install-awscli.sh): what boots a member, with the rehearsal" },
  openssl: { project: 'service', what: 'the openssl command' },
  objdump: { project: 'service', what: 'objdump (binutils), to read symbol versions' },
  'cfn-lint': { project: 'service', what: 'cfn-lint, the CloudFormation linter' },
  'cmark-gfm': { project: 'service', what: "cmark-gfm, GitHub's Markdown renderer (apt-get install cmark-gfm)" },
  prometheus: { project: 'service', what: "python3's prometheus_client, the Prometheus project's own parser" },
  chromium: { project: 'service', what: "Debian's chromium, driven by puppeteer-core" },
  packaging: { project: 'package', what: 'npm pack of this checkout and npm install of it from a warm cache (the packed tarball is made once per run)' },
  bundle: { project: 'package', what: 'the bundles (npm run bundle), made once per run and kept in VOLBENCH_CACHE' },
  debian: { project: 'package', what: 'the Debian 11 root (scripts/debian-root.sh), chroot and unshare as root' },
  qemu: { project: 'package', what: 'qemu-user for arm64 (/usr/bin/qemu-aarch64) and the Debian 11 root' },
} as const satisfies Record<string, RequirementInfo>;

export type Requirement = keyof typeof REQUIREMENTS;

export function isRequirement(name: string): name is Requirement {
  return Object.hasOwn(REQUIREMENTS, name);
}

/** The project of a file that needs `names`: the one of its requirements that asks the most. */
export function projectOf(names: readonly Requirement[]): Project {
  return names.reduce<Project>((p, n) => (PROJECTS.indexOf(REQUIREMENTS[n].project) > PROJECTS.indexOf(p) ? REQUIREMENTS[n].project : p), 'unit');
}

/** The declaration, a line of its own: `requires(...)` or `const needs = requires(...)`, names as string literals. */
const DECLARATION = /^(?:const needs = )?requires\(([^)]*)\);$/gm;
/** Any statement that calls requires(, however written: a second one, or one the reader would misread. */
const ANY_CALL = /^[ \t]*(?:(?:const|let|var) \w+ = )?requires\(/gm;

export type Declaration = { names: Requirement[] } | { problem: string };

/** The needs a test file's text declares, or why it does not declare them readably. */
export function readDeclaration(text: string): Declaration {
  const lines = [...text.matchAll(DECLARATION)];
  const calls = [...text.matchAll(ANY_CALL)].length;
  if (lines.length === 0) return { problem: "declares no needs: add a line `const needs = requires('…');` (or `requires();` for none)" };
  if (lines.length > 1 || calls > 1) return { problem: 'calls requires( more than once: one declaration line per file' };
  const args = lines[0][1].trim();
  const names: Requirement[] = [];
  for (const arg of args ? args.split(',') : []) {
    const literal = /^\s*'([a-z_-]+)'\s*$/.exec(arg);
    if (!literal) return { problem: `requires(${args}): names as string literals only, so the config can read them` };
    if (!isRequirement(literal[1])) return { problem: `requires '${literal[1]}', which is not a requirement (tests/helpers/projects.ts lists them)` };
    names.push(literal[1]);
  }
  return { names };
}

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

export interface Classified {
  /** Test files (repo-relative, `/`-separated) by project. */
  files: Record<Project, string[]>;
  /** Files whose declaration cannot be read, with why. */
  problems: string[];
}

/** Every tests/**\/*.test.ts under `root`, sorted into projects by its declaration. */
export function classify(root: string): Classified {
  const out: Classified = { files: { unit: [], service: [], device: [], package: [] }, problems: [] };
  for (const path of testFiles(join(root, 'tests')).sort()) {
    const name = relative(root, path).split(sep).join('/');
    const declared = readDeclaration(readFileSync(path, 'utf8'));
    if ('problem' in declared) out.problems.push(`${name} ${declared.problem}`);
    else out.files[projectOf(declared.names)].push(name);
  }
  return out;
}
