/**
 * The flags `run`, `suite` and the analyses share that fio lacks: the gates (--assert EXPR,
 * repeatable, --junit FILE, --github), the limits the service also applies (--max-runtime TIME,
 * --max-size SIZE, --max-memory SIZE) and the volume (--volume, --instance). They are taken out of
 * the argument list before fio's flags are parsed.
 */
import { checkPlacement, instanceType, parseVolume, type CloudContext } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import { parseSize } from '../jobspec/index.js';
import { parseMaxRuntimeSec, type RunLimits } from '../plan/index.js';

export interface GateArgs {
  asserts: string[];
  junit?: string;
  github: boolean;
}

export interface OwnFlags extends GateArgs {
  limits: RunLimits;
  /** --volume and --instance: the result gains what the volume should deliver. */
  cloud?: CloudContext;
  /** --instance without --volume: kept only for `run`, whose lookup may find the volume on AWS. */
  instance?: string;
  /** false with --no-cloud-lookup (run only: the other commands never ask AWS). */
  cloudLookup: boolean;
  /** The arguments that are none of these, in order. */
  rest: string[];
}

/** Which commands take a flag: run, suite, and the analyses. */
export type OwnFlagsCommand = 'run' | 'suite' | 'sweep' | 'uniformity' | 'rotational';

/** What --max-runtime does in each command: the budget is the same rule, what it covers is not. */
const MAX_RUNTIME_HELP: Readonly<Record<OwnFlagsCommand, string>> = {
  run: `  --max-runtime TIME                 refuse a run whose stonewall stages, one after another,
                                     take longer than TIME; a job that ends on its size gets
                                     what is left as its runtime, so the run ends by then
`,
  suite: `  --max-runtime TIME                 refuse a suite whose tests, times its loops, take longer
                                     than TIME; a test that ends on its size (kdiskmark's) gets
                                     its share as its runtime
`,
  sweep: `  --max-runtime TIME                 refuse a sweep whose points take longer than TIME in all;
                                     each point gets TIME / points at most
`,
  uniformity: `  --max-runtime TIME                 end the pass within TIME: each chunk's probe gets
                                     TIME / --chunks at most
`,
  rotational: `  --max-runtime TIME                 end the measurement within TIME: each batch of timed reads
                                     gets its share of TIME at most
`,
};

/** Each flag's help and the commands it applies to: every command's --help lists its own. */
const OWN_FLAGS_HELP: ReadonlyArray<{ text: string | ((command: OwnFlagsCommand) => string); only?: readonly OwnFlagsCommand[] }> = [
  { text: `  --assert EXPR                      a gate, repeatable: '<job>[.<dir>].<metric> <op> <value>'
  --junit FILE, --github             gate reports: JUnit XML, GitHub Actions annotations
` },
  { text: (command) => MAX_RUNTIME_HELP[command] },
  { text: `  --max-size SIZE                    refuse a run whose jobs address more than SIZE in all
  --max-memory SIZE                  refuse a run whose I/O buffers (bs × iodepth × numjobs)
                                     take more than SIZE in all
  --volume TYPE:SIZE[:iops=N][:throughput=MiB/s]   the volume measured (volbench catalog),
                                     e.g. gp3:500g:iops=6000: the result gains volbench.cloud
                                     and each job's entitlement
  --instance TYPE                    the instance it is attached to (its EBS limits)
` },
  { only: ['run', 'suite'], text: `  --prices FILE                      price the volume from this file (volbench prices refresh)
` },
  { only: ['run', 'suite'], text: `  --no-cloud-lookup                  on EC2, do not ask AWS which EBS volume the target is
                                     (also VOLBENCH_CLOUD_LOOKUP=off)
` },
  { only: ['run'], text: `  --until-baseline                   with a --volume that bursts (gp2, st1, sc1): run
                                     time_based until the burst cliff and the baseline after it
                                     show, at most as long as a full bucket lasts plus a margin
                                     (within --max-runtime)
  --until-steady MAX                 time_based for MAX at most, ending once fio's steady state
                                     holds (the job's steadystate=, else iops_slope:0.1%)
` },
];

/** The own flags `command` takes, as its --help lists them. */
export function ownFlagsUsage(command: OwnFlagsCommand): string {
  return OWN_FLAGS_HELP.filter((f) => f.only === undefined || f.only.includes(command))
    .map((f) => (typeof f.text === 'string' ? f.text : f.text(command))).join('');
}

const VALUE_FLAGS = new Set(['assert', 'junit', 'max-runtime', 'max-size', 'max-memory', 'volume', 'instance']);

/** `--name value` or `--name=value`: the value and how many arguments it took (1 or 2). */
export function flagValue(argv: readonly string[], i: number, name: string): [string, number] {
  const arg = argv[i];
  const prefix = `--${name}=`;
  if (arg.startsWith(prefix)) return [arg.slice(prefix.length), 1];
  const next = argv[i + 1];
  if (next === undefined) throw new VolbenchError('EINVALID_ARGS', `--${name} needs a value`, { field: `--${name}` });
  return [next, 2];
}

/** The flag name of `--name` / `--name=value`, or null for anything else. */
export function flagName(arg: string): string | null {
  const m = /^--([a-z_-]+)(?:=|$)/.exec(arg);
  return m ? m[1] : null;
}

function setValue(out: OwnFlags, name: string, value: string, warn: (line: string) => void): void {
  if (name === 'assert') out.asserts.push(value);
  else if (name === 'junit') out.junit = value;
  else if (name === 'max-runtime') out.limits.maxRuntimeSec = parseMaxRuntimeSec(value, '--max-runtime');
  else if (name === 'max-size') out.limits.maxSizeBytes = parseSize(value, { field: '--max-size' });
  else if (name === 'volume') out.cloud = { ...out.cloud, volume: parseVolume(value, { field: '--volume', onOldForm: warn }) };
  else if (name === 'instance') {
    instanceType(value);
    out.instance = value;
  }
  else out.limits.maxMemoryBytes = parseSize(value, { field: '--max-memory' });
}

export interface OwnFlagOptions {
  /** The command may learn the volume from AWS (run, on EC2): --instance alone is not refused here. */
  volumeFromAws?: boolean;
  /** Where a note on the flags goes (a deprecated form), one line each. */
  warn?: (line: string) => void;
}

/** Takes the shared flags out of `argv`; --instance needs --volume unless `volumeFromAws`. */
export function extractOwnFlags(argv: readonly string[], options: OwnFlagOptions = {}): OwnFlags {
  const warn = options.warn ?? (() => {});
  const out: OwnFlags = { asserts: [], github: false, limits: {}, cloudLookup: true, rest: [] };
  for (let i = 0; i < argv.length; ) {
    const name = flagName(argv[i]);
    if (argv[i] === '--') {
      out.rest.push(...argv.slice(i));
      break;
    }
    if (name === 'github' && argv[i] === '--github') {
      out.github = true;
      i++;
    } else if (argv[i] === '--no-cloud-lookup' && options.volumeFromAws) {
      out.cloudLookup = false;
      i++;
    } else if (name !== null && VALUE_FLAGS.has(name)) {
      const [value, used] = flagValue(argv, i, name);
      setValue(out, name, value, warn);
      i += used;
    } else {
      out.rest.push(argv[i]);
      i++;
    }
  }
  const { instance, ...flags } = out;
  if (instance === undefined) return flags;
  if (flags.cloud) {
    checkPlacement(flags.cloud.volume, instance, '--instance', '--volume.size');
    flags.cloud.instance = instance;
    return flags;
  }
  if (!options.volumeFromAws) throw instanceNeedsVolume();
  return { ...flags, instance };
}

export function instanceNeedsVolume(): VolbenchError {
  return new VolbenchError('EINVALID_ARGS', '--instance needs --volume: the entitlement is the volume\'s, bounded by the instance', {
    field: '--volume', accepted: 'e.g. --volume gp3:500g',
  });
}
