/**
 * Finding an option by any name fio accepts for it, and the errors for names volbench does not
 * take: a fio option it does not support yet, or a name nobody knows (with a suggestion).
 */
import { VolbenchError } from '../errors.js';
import { FIO_ENGINE_OPTION_NAMES, FIO_JOB_OPTION_NAMES } from './fio-option-names.js';
import type { OptionDef } from './option-def.js';
import { SUPPORTED_OPTIONS } from './options.js';
import { REFUSED_OPTIONS } from './refused.js';
import { suggestName } from './suggest.js';

const BY_NAME = new Map<string, OptionDef>();
for (const def of SUPPORTED_OPTIONS) {
  for (const name of [def.name, ...def.aliases]) BY_NAME.set(name, def);
}

const FIO_NAMES = new Set([...FIO_JOB_OPTION_NAMES, ...FIO_ENGINE_OPTION_NAMES]);

/** Every name (and alias) volbench accepts. */
export const SUPPORTED_NAMES: readonly string[] = [...BY_NAME.keys()];

export function findOption(name: string): OptionDef | undefined {
  return BY_NAME.get(name);
}

/** fio 3.33 has an option by this name (supported by volbench or not). */
export function isFioOptionName(name: string): boolean {
  return FIO_NAMES.has(name);
}

export const SUPPORTED_ACCEPTED = `an option volbench supports: ${SUPPORTED_OPTIONS.map((d) => d.name).join(', ')}`;

/**
 * No option name is this long: fio's longest is 30 characters. A longer name is refused as
 * unknown without a suggestion, and shown cut to this length so the error stays small.
 */
export const MAX_OPTION_NAME_LENGTH = 64;

function overlongNameError(name: string, scope: string): VolbenchError {
  const shown = `${name.slice(0, MAX_OPTION_NAME_LENGTH)}…`;
  return new VolbenchError('EUNKNOWN_OPTION',
    `unknown option '${shown}' in ${scope}: the name is ${name.length} characters long, and no option name is longer than ${MAX_OPTION_NAME_LENGTH}`,
    { field: `${scope}.${shown}`, accepted: `${SUPPORTED_ACCEPTED} (names of at most ${MAX_OPTION_NAME_LENGTH} characters)` });
}

/** The error for a name that is not a supported option; `scope` is `global` or `jobs[2]`. */
export function optionNameError(name: string, scope: string, extraCandidates: readonly string[] = []): VolbenchError {
  if (name.length > MAX_OPTION_NAME_LENGTH) return overlongNameError(name, scope);
  const field = `${scope}.${name}`;
  if (Object.hasOwn(REFUSED_OPTIONS, name)) {
    const { why, accepted } = REFUSED_OPTIONS[name];
    return new VolbenchError('EUNSUPPORTED_OPTION', `fio option '${name}' (${why}) is not supported by volbench yet (in ${scope})`, { field, accepted });
  }
  if (isFioOptionName(name)) {
    return new VolbenchError('EUNSUPPORTED_OPTION', `fio option '${name}' is not supported by volbench yet (in ${scope})`,
      { field, accepted: SUPPORTED_ACCEPTED });
  }
  const guess = suggestName(name, [...SUPPORTED_NAMES, ...extraCandidates], FIO_NAMES);
  const hint = guess === undefined ? '' : `; did you mean '${guess}'?`;
  return new VolbenchError('EUNKNOWN_OPTION', `unknown option '${name}' in ${scope}${hint}`,
    { field, accepted: SUPPORTED_ACCEPTED });
}

/** The row for `name`, or the error saying why there is none. */
export function requireOption(name: string, scope: string): OptionDef {
  const def = BY_NAME.get(name);
  if (!def) throw optionNameError(name, scope);
  return def;
}
