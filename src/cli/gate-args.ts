/**
 * The gate flags `run` and `suite` share: --assert EXPR (repeatable), --junit FILE, --github.
 * They are taken out of the argument list before fio's flags are parsed, since fio has none
 * of them.
 */
import { VolbenchError } from '../errors.js';

export interface GateArgs {
  asserts: string[];
  junit?: string;
  github: boolean;
  /** The arguments that are not gate flags, in order. */
  rest: string[];
}

const VALUE_FLAGS = new Set(['assert', 'junit']);

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

export function extractGateArgs(argv: readonly string[]): GateArgs {
  const out: GateArgs = { asserts: [], github: false, rest: [] };
  for (let i = 0; i < argv.length; ) {
    const name = flagName(argv[i]);
    if (argv[i] === '--') {
      out.rest.push(...argv.slice(i));
      break;
    }
    if (name === 'github' && argv[i] === '--github') {
      out.github = true;
      i++;
    } else if (name !== null && VALUE_FLAGS.has(name)) {
      const [value, used] = flagValue(argv, i, name);
      if (name === 'assert') out.asserts.push(value);
      else out.junit = value;
      i += used;
    } else {
      out.rest.push(argv[i]);
      i++;
    }
  }
  return out;
}
