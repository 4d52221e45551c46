/**
 * Substitutions fio makes in job-file option lines (options.c fio_option_dup_subs,
 * fio_keyword_replace): `${VAR}` from the environment, then the keywords `$pagesize`,
 * `$mb_memory` and `$ncpus`, after which a value with + - * / is computed.
 */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

import { VolbenchError } from '../errors.js';
import { ownValue } from '../own-key.js';
import { evaluateInteger } from './arithmetic.js';

export type Env = Record<string, string | undefined>;

export interface ExpandContext {
  env: Env;
  /** 1-based line number, for messages. */
  line: number;
  /** Spec path of the option on this line. */
  field: string;
}

function unsetVariable(name: string, ctx: ExpandContext): VolbenchError {
  return new VolbenchError('EJOBFILE', `line ${ctx.line}: environment variable '${name}' is not set`, {
    field: ctx.field,
    accepted: 'a ${NAME} whose variable is set in the environment',
  });
}

/**
 * `${NAME}` becomes the variable's value: the name runs to the first `}`, and a `${` with no `}`
 * after it is left as it is. fio silently substitutes an empty string for an unset variable,
 * which turns `filename=${DEV}` into a different job; volbench refuses instead.
 *
 * A scan rather than a global regex: /\$\{([^}]*)\}/g retries from every `${` of an unclosed run
 * (`${${${...`) and reads to the end each time, which is quadratic.
 */
export function expandEnv(text: string, ctx: ExpandContext): string {
  let out = '';
  let from = 0;
  for (let open = text.indexOf('${'); open >= 0; open = text.indexOf('${', from)) {
    const close = text.indexOf('}', open + 2);
    // No `}` after this `${` means none after any later one either: the rest stays as written.
    if (close < 0) break;
    const name = text.slice(open + 2, close);
    // Own keys only: `${constructor}` is not a variable of an empty environment.
    const value = ownValue(ctx.env, name);
    if (value === undefined) throw unsetVariable(name, ctx);
    out += text.slice(from, open) + value;
    from = close + 1;
  }
  return out + text.slice(from);
}

/** The system page size, from the kernel's own report for this process's mappings. */
function pageSize(): number {
  const smaps = readFileSync('/proc/self/smaps', 'utf8');
  const kb = /^KernelPageSize:\s+(\d+) kB/m.exec(smaps);
  return kb ? Number(kb[1]) * 1024 : 4096;
}

/**
 * A value computed the first time it is asked for, then kept: a job file may use a keyword on
 * every line, and reading /proc/self/smaps (or listing CPUs) per line took seconds for a few
 * thousand lines, on the service's event loop.
 */
function once(compute: () => number): () => number {
  let value: number | undefined;
  return () => (value ??= compute());
}

/** fio's keywords in fio's replacement order; values are computed only when used, once. */
const KEYWORDS: Array<[word: string, value: () => number]> = [
  ['$pagesize', once(pageSize)],
  ['$mb_memory', once(() => Math.floor(totalmem() / (1024 * 1024)))],
  ['$ncpus', once(() => cpus().length)],
];

/** Replace fio's keywords; when one was replaced and the value has + - * /, compute it. */
export function expandKeywords(name: string, value: string, ctx: ExpandContext): string {
  let out = value;
  let replaced = false;
  for (const [word, compute] of KEYWORDS) {
    if (!out.includes(word)) continue;
    out = out.split(word).join(String(compute()));
    replaced = true;
  }
  if (!replaced || !/[-+*/]/.test(out) || out.includes("'")) return out;
  const result = evaluateInteger(out);
  if (result === undefined) {
    throw new VolbenchError('EJOBFILE', `line ${ctx.line}: cannot compute '${out}' for ${name}`, {
      field: ctx.field,
      accepted: 'whole numbers and $ncpus, $mb_memory, $pagesize with + - * / and parentheses',
    });
  }
  return result.toString();
}
