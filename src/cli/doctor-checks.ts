/**
 * What `volbench doctor` looks at, one check each: Node and npm, the addon that loads and why,
 * the engines the kernel sets up (the addon's own probe), O_DIRECT and free space where runs
 * would go, the service's data directory, and AWS. Each says ok, warn or fail, and what to do
 * when it is not ok. Nothing here writes but the probe file O_DIRECT needs (removed at once).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { addonChoice, nativeAddon } from '../engine/addon.js';
import { NODE_MINIMUM, nodeVersionProblem } from '../node-version.js';
import { formatBytes } from './progress-line.js';

export type Verdict = 'ok' | 'warn' | 'fail';

export interface Check {
  verdict: Verdict;
  subject: string;
  text: string;
  /** What to do, when the verdict is not ok. */
  todo?: string;
}

const GiB = 1024 ** 3;

export function nodeCheck(version = process.versions.node): Check {
  const problem = nodeVersionProblem(version);
  return problem
    ? { verdict: 'fail', subject: 'Node.js', text: problem, todo: 'install Node.js 22 or 24 (nodejs.org, or your distribution\'s nodesource packages)' }
    : { verdict: 'ok', subject: 'Node.js', text: `${version} (volbench needs ${NODE_MINIMUM.join('.')} or newer)` };
}

/** npm beside this Node, else on PATH. */
export async function npmCheck(): Promise<Check> {
  const beside = join(dirname(process.execPath), 'npm');
  const npm = existsSync(beside) ? beside : 'npm';
  try {
    const { stdout } = await promisify(execFile)(npm, ['--version'], { timeout: 15_000 });
    return { verdict: 'ok', subject: 'npm', text: stdout.trim() };
  } catch {
    return { verdict: 'warn', subject: 'npm', text: 'not found beside this Node or on PATH', todo: 'only installing or updating volbench needs it: install npm with Node.js' };
  }
}

export function addonCheck(): Check {
  try {
    const choice = addonChoice();
    nativeAddon();
    return { verdict: 'ok', subject: 'addon', text: `${choice.from === 'source' ? 'built from source' : choice.from === 'prebuilt' ? 'prebuilt' : 'VOLBENCH_ADDON'}, ${choice.path}: ${choice.why}` };
  } catch (err) {
    return {
      verdict: 'fail', subject: 'addon', text: (err as Error).message,
      todo: 'build it from source: VOLBENCH_BUILD_FROM_SOURCE=1 npm rebuild volbench (needs a C++17 compiler, make and python3)',
    };
  }
}

/** The engines the addon's own probe finds the kernel sets up. */
export function engineChecks(): Check[] {
  let engines: string[];
  try {
    engines = nativeAddon().engines();
  } catch {
    return [];
  }
  const uring = engines.includes('io_uring');
  const aio = engines.includes('libaio');
  const disabled = uring ? '' : readSmall('/proc/sys/kernel/io_uring_disabled');
  return [
    uring
      ? { verdict: 'ok', subject: 'io_uring', text: 'available (probed: a ring was set up)' }
      : {
        verdict: 'warn', subject: 'io_uring', text: `not available${disabled && disabled !== '0' ? ` (kernel.io_uring_disabled=${disabled})` : ''}; runs fall back to libaio, then psync`,
        todo: 'a kernel of 5.1 or newer with io_uring allowed (sysctl kernel.io_uring_disabled=0; some container runtimes block it)',
      },
    aio
      ? { verdict: 'ok', subject: 'libaio', text: 'available (probed: an AIO context was set up)' }
      : { verdict: 'warn', subject: 'libaio', text: 'not available; ioengine=libaio jobs fall back to psync', todo: 'raise fs.aio-max-nr, or leave it: io_uring is the default' },
  ];
}

/** A sysctl's value, or '' where it cannot be read. */
function readSmall(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** O_DIRECT and free space where runs would put their files, from the addon's own probe. */
export async function directoryChecks(directory: string): Promise<Check[]> {
  const dir = resolve(directory);
  let info;
  try {
    info = await nativeAddon().probeTarget(join(dir, `.volbench-doctor-${process.pid}`));
  } catch {
    return [];
  }
  if (!info || info.error !== 0) {
    return [{ verdict: 'fail', subject: 'directory', text: `${dir} cannot be examined (errno ${info?.error ?? 'unknown'})`, todo: 'give --directory a directory you may write' }];
  }
  const direct: Check = info.directOk
    ? { verdict: 'ok', subject: 'O_DIRECT', text: `works on ${dir} (${info.fsType})` }
    : { verdict: 'warn', subject: 'O_DIRECT', text: `refused on ${dir} (${info.fsType})`, todo: 'direct=1 jobs need another filesystem here (ext4, xfs, tmpfs): give --directory elsewhere' };
  const free = info.fsFreeBytes;
  const space: Check = free >= 2 * GiB
    ? { verdict: 'ok', subject: 'free space', text: `${formatBytes(free)} on ${dir}` }
    : { verdict: 'warn', subject: 'free space', text: `${formatBytes(free)} on ${dir}`, todo: 'the suites lay out 1 GiB (kdiskmark) to 16 GiB (aws-ssd): free some, or give --size' };
  return [direct, space];
}

/** The service's data directory (its database and token): there, a directory, only ours to write. */
export function dataDirCheck(dataDir: string): Check {
  const subject = 'data directory';
  if (!existsSync(dataDir)) {
    return { verdict: 'warn', subject, text: `${dataDir} does not exist yet`, todo: 'volbench serve creates it (mode 0700) on first start; only the service needs it' };
  }
  const st = statSync(dataDir);
  if (!st.isDirectory()) return { verdict: 'fail', subject, text: `${dataDir} is not a directory`, todo: 'remove it, or give serve --data-dir elsewhere' };
  try {
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch {
    return { verdict: 'fail', subject, text: `${dataDir} is not writable by this user`, todo: 'run serve as its owner, or give --data-dir a directory of your own' };
  }
  const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
  if (st.mode & 0o022) {
    return { verdict: 'fail', subject, text: `${dataDir} is writable by others (mode ${mode}): serve refuses it, since they could replace the token or the database`, todo: `chmod go-w ${dataDir}` };
  }
  const mine = process.getuid === undefined || st.uid === process.getuid();
  return mine
    ? { verdict: 'ok', subject, text: `${dataDir} (mode ${mode}, yours)` }
    : { verdict: 'fail', subject, text: `${dataDir} belongs to uid ${st.uid}, not to you: serve refuses it`, todo: 'run serve as its owner, or give --data-dir a directory of your own' };
}

/** Where the default credential chain would find credentials without asking the network. */
export function awsCredentialsSource(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.AWS_ACCESS_KEY_ID) return 'AWS_ACCESS_KEY_ID';
  if (env.AWS_PROFILE) return `AWS_PROFILE=${env.AWS_PROFILE}`;
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE) return 'AWS_WEB_IDENTITY_TOKEN_FILE';
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) return "the container's role";
  for (const file of [env.AWS_SHARED_CREDENTIALS_FILE ?? join(homedir(), '.aws', 'credentials'), env.AWS_CONFIG_FILE ?? join(homedir(), '.aws', 'config')]) {
    if (existsSync(file)) return file;
  }
  return null;
}

/** Without --aws: what is configured, nothing asked of AWS. */
export function awsConfiguredCheck(env: NodeJS.ProcessEnv = process.env): Check {
  const source = awsCredentialsSource(env);
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (source) return { verdict: 'ok', subject: 'AWS', text: `credentials configured (${source})${region ? `, region ${region}` : ''}; not checked (--aws checks them)` };
  return {
    verdict: 'warn', subject: 'AWS', text: 'no credentials configured (environment, profile files); an instance role is not looked for without --aws',
    todo: 'only fleet, prices refresh and cloud look-ups need them: aws configure, or AWS_PROFILE; then volbench doctor --aws',
  };
}
