/**
 * `volbench serve`: flags to a ServerConfig, then the service in a child process until SIGINT or
 * SIGTERM (serve-supervisor.ts). Wiring only; the service is src/server/.
 */
import { parseArgs } from 'node:util';

import { VolbenchError } from '../errors.js';
import { activePrices } from '../cloud/price-source.js';
import { superviseService } from './serve-supervisor.js';
import { parseMaxRuntimeSec } from '../plan/index.js';
import { DEFAULTS, defaultDataDir, type ServerConfig } from '../server/config.js';
import { loadOrCreateToken, readTokenFile } from '../server/http/token.js';
import { checkRootPaths } from '../server/admission/roots.js';
import type { TlsIdentity } from '../server/config.js';
import { certificateFingerprint, readTlsFiles } from '../server/http/tls.js';
import { parseSize, parseTimeNs } from '../jobspec/index.js';
import type { CommandIo } from './io.js';
import { STUDY_OPTIONS, STUDY_USAGE, studyConfig } from './serve-studies.js';

export const SERVE_USAGE = `volbench serve [options]
  --host HOST                 address to listen on (default 127.0.0.1)
  --port PORT                 port (default 8080; 0 picks a free one)
  --data-dir DIR              database and generated token (default $XDG_DATA_HOME/volbench)
  --target-root DIR|DEVICE    where runs may do I/O; repeat for several (the first is the default)
  --allow-block-write DEVICE  let runs write this block device, itself a --target-root; repeatable
  --token-file FILE           read the bearer token from FILE, which only its owner may read (chmod 600)
  --token TOKEN               bearer token; other users see it in the process list: prefer --token-file
                              or $VOLBENCH_TOKEN (with none of the three, one is generated and stored)
  --max-concurrent N          runs on different devices at once (default ${DEFAULTS.maxConcurrent})
  --queue-limit N             runs that may wait; more get 429 (default ${DEFAULTS.queueLimit})
  --max-runtime TIME          longest run: its stages' startdelay+ramp_time+runtime (default ${DEFAULTS.maxRuntimeSec}s)
  --max-size SIZE             bytes one run may address, 0 for no limit (default 64g)
  --max-memory SIZE           memory the runs going at once and the stuck jobs take together:
                              I/O buffers (bs × iodepth × numjobs); one root's runs (so one
                              run) at most 75% of it; 0 for no limit (default a quarter of RAM)
  --max-stuck-threads N       threads left stuck in calls a device never answered; past it no
                              run is taken (default ${DEFAULTS.maxStuckThreads})
  --max-connections N         client connections kept; past it a new one replaces the oldest
                              idle one (default: the descriptor limit less a quarter, at most
                              1024 less); a connection that sends nothing is closed after 10 s
  --keep-runs N               ended runs kept in the store (default ${DEFAULTS.keepRuns})
  --report-timeout TIME       longest one report may take to render (default ${DEFAULTS.reportTimeoutSec}s)
  --report-max-size SIZE      largest report answered (default 20m)
  --report-memory SIZE        memory one report render may use, its thread's heap (default 256m);
                              each thread takes up to 80 MiB more (young generation, code)
  --report-concurrency N      reports rendered at once, each on a thread (default ${DEFAULTS.reportConcurrency})
  --report-queue-limit N      reports that may wait for a thread; more get 429 (default ${DEFAULTS.reportQueueLimit})
  --tls-cert FILE             serve HTTPS with this PEM certificate (chain); needs --tls-key
  --tls-key FILE              the certificate's PEM private key, readable by its owner only (chmod 600)
Studies (docs/service.md#studies):
${STUDY_USAGE}`;

const OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '8080' },
  'data-dir': { type: 'string' },
  'target-root': { type: 'string', multiple: true },
  'allow-block-write': { type: 'string', multiple: true },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'max-concurrent': { type: 'string' },
  'queue-limit': { type: 'string' },
  'max-runtime': { type: 'string' },
  'max-size': { type: 'string' },
  'max-memory': { type: 'string' },
  'max-stuck-threads': { type: 'string' },
  'max-connections': { type: 'string' },
  'keep-runs': { type: 'string' },
  'report-timeout': { type: 'string' },
  'report-max-size': { type: 'string' },
  'report-memory': { type: 'string' },
  'report-concurrency': { type: 'string' },
  'report-queue-limit': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  ...STUDY_OPTIONS,
} as const;

function count(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) {
    throw new VolbenchError('EINVALID_ARGS', `--${flag} takes a whole number of at least ${min}, not '${text}'`, {
      field: `--${flag}`,
      accepted: `an integer >= ${min}`,
    });
  }
  return Number(text);
}

const TOKEN_FLAG_WARNING =
  'volbench: warning: --token shows the token to every user of this host in the process list (/proc/PID/cmdline, ps) ' +
  'until the server has read it; give it in VOLBENCH_TOKEN or with --token-file FILE (chmod 600) instead\n';

/** --token (with a warning), --token-file, VOLBENCH_TOKEN, else the one stored in (or generated for) the data dir. */
function serviceToken(flag: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv, dataDir: string, io: CommandIo): string {
  if (flag !== undefined && file !== undefined) {
    throw new VolbenchError('EINVALID_ARGS', 'give either --token or --token-file, not both', { field: '--token-file', accepted: 'one of them' });
  }
  if (flag) {
    io.stderr.write(TOKEN_FLAG_WARNING);
    return flag;
  }
  if (file !== undefined) return readTokenFile(file);
  if (env.VOLBENCH_TOKEN) return env.VOLBENCH_TOKEN;
  const stored = loadOrCreateToken(dataDir);
  if (stored.generated) io.stderr.write(`volbench: generated an API token, stored in ${stored.path} (mode 0600):\n${stored.token}\n`);
  else io.stderr.write(`volbench: using the API token stored in ${stored.path}\n`);
  return stored.token;
}

/** Both TLS files or neither: the pair, read once, or undefined for plain HTTP. */
function tlsIdentity(cert: string | undefined, key: string | undefined): TlsIdentity | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) {
    const missing = cert === undefined ? '--tls-cert' : '--tls-key';
    throw new VolbenchError('EINVALID_ARGS', `${missing} is missing: HTTPS needs both --tls-cert FILE and --tls-key FILE`, {
      field: missing,
      accepted: 'both --tls-cert and --tls-key, or neither for plain HTTP',
    });
  }
  return readTlsFiles(cert, key);
}

/**
 * What ps shows once the token is read: the command line with --token's value hidden, or null
 * when there is none. Linux lets a process rewrite its own /proc/PID/cmdline (process.title),
 * within the length of the original; the warning stays, since the token was visible until then.
 */
export function commandLineWithoutToken(argv: string[]): string | null {
  let hidden = false;
  const shown = argv.map((arg, i) => {
    if (arg.startsWith('--token=') || argv[i - 1] === '--token') {
      hidden = true;
      return arg.startsWith('--token=') ? '--token=[hidden]' : '[hidden]';
    }
    return arg;
  });
  return hidden ? ['volbench', 'serve', ...shown].join(' ') : null;
}

function positiveSize(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const bytes = parseSize(text, { field: `--${flag}` });
  if (bytes === 0) throw new VolbenchError('EINVALID_ARGS', `--${flag} must be more than 0`, { field: `--${flag}`, accepted: 'a size such as 20m' });
  return bytes;
}

type ReportFlags = Pick<ServerConfig, 'reportTimeoutSec' | 'reportMaxBytes' | 'reportMemoryBytes' | 'reportConcurrency' | 'reportQueueLimit'>;

/** The report budgets (report-renderer.ts); unset flags keep the defaults. */
function reportOptions(values: Partial<Record<'report-timeout' | 'report-max-size' | 'report-memory' | 'report-concurrency' | 'report-queue-limit', string>>): ReportFlags {
  const timeout = values['report-timeout'];
  let reportTimeoutSec: number | undefined;
  if (timeout !== undefined) {
    reportTimeoutSec = parseTimeNs(timeout, { defaultUnit: 's', field: '--report-timeout' }) / 1e9;
    if (reportTimeoutSec <= 0) {
      throw new VolbenchError('EINVALID_ARGS', '--report-timeout must be more than 0', { field: '--report-timeout', accepted: 'a time such as 30s or 500ms' });
    }
  }
  const out: ReportFlags = {
    reportTimeoutSec,
    reportMaxBytes: positiveSize('report-max-size', values['report-max-size']),
    reportMemoryBytes: positiveSize('report-memory', values['report-memory']),
    reportConcurrency: count('report-concurrency', values['report-concurrency'], 1),
    reportQueueLimit: count('report-queue-limit', values['report-queue-limit'], 0),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

export function serveConfig(argv: string[], env: NodeJS.ProcessEnv, io: CommandIo): ServerConfig & { host: string; port: number } {
  const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  const dataDir = values['data-dir'] ?? defaultDataDir(env);
  const targetRoots = values['target-root'] ?? [];
  checkRootPaths(targetRoots);
  const maxRuntime = values['max-runtime'];
  const maxSize = values['max-size'];
  const config = {
    host: values.host,
    port: count('port', values.port, 0)!,
    dataDir,
    targetRoots,
    allowBlockWrite: values['allow-block-write'] ?? [],
    maxConcurrent: count('max-concurrent', values['max-concurrent'], 1),
    queueLimit: count('queue-limit', values['queue-limit'], 0),
    maxRuntimeSec: maxRuntime === undefined ? undefined : parseMaxRuntimeSec(maxRuntime, '--max-runtime'),
    maxSizeBytes: maxSize === undefined ? undefined : parseSize(maxSize, { field: '--max-size' }),
    maxMemoryBytes: values['max-memory'] === undefined ? undefined : parseSize(values['max-memory'], { field: '--max-memory' }),
    maxStuckThreads: count('max-stuck-threads', values['max-stuck-threads'], 1),
    maxConnections: count('max-connections', values['max-connections'], 1),
    keepRuns: count('keep-runs', values['keep-runs'], 1),
    ...reportOptions(values),
    tls: tlsIdentity(values['tls-cert'], values['tls-key']),
    logger: { level: env.VOLBENCH_LOG_LEVEL ?? 'warn' },
  };
  // Last: a command line that cannot serve must not generate (and print) a token.
  let token: string | undefined;
  const runToken = () => (token ??= serviceToken(values.token, values['token-file'], env, dataDir, io));
  const studies = studyConfig(values, env, runToken);
  return { ...config, token: runToken(), ...(studies ? { studies } : {}) };
}

export async function serveCommand(argv: string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let config;
  try {
    config = serveConfig(argv, env, io);
  } catch (err) {
    if (err instanceof VolbenchError) throw err;
    throw new VolbenchError('EINVALID_ARGS', `serve: ${(err as Error).message}`, { accepted: 'see volbench serve --help' });
  }
  const title = commandLineWithoutToken(argv);
  if (title !== null) process.title = title;
  return superviseService(config, activePrices()?.file ?? null, io, (address) => {
    // One write, so that whoever waits for "serving on" has the fingerprint and the addresses with it.
    const pin = config.tls ? `volbench: TLS certificate SHA-256 fingerprint ${certificateFingerprint(config.tls.cert)}\n` : '';
    io.stderr.write(`volbench: serving on ${address} (target roots: ${config.targetRoots.join(', ')})\n${pin}` +
      `volbench: web view at ${address}/, API docs at ${address}/v1/docs/ (the token as the password), OpenAPI at ${address}/v1/openapi.json\n`);
  });
}
