/**
 * fio's file_service_type (options.c str_fst_cb): `roundrobin` (the default), `random` or
 * `sequential`, each optionally with `:N`, the I/Os a file gets before the next is picked
 * (sequential takes it and ignores it, as fio does). zipf, pareto and normal (gauss) pick files by
 * a distribution, which volbench does not do yet.
 */
import type { FileServiceType } from './types.js';
import { invalidValue, unsupported } from './fail.js';
import type { OptionContext } from './option-def.js';

export const FILE_SERVICE_ACCEPTED = "roundrobin, random or sequential, optionally with ':N' (N I/Os per turn, from 1)";

const KINDS: ReadonlySet<string> = new Set(['roundrobin', 'random', 'sequential']);
const DISTRIBUTIONS: ReadonlySet<string> = new Set(['zipf', 'pareto', 'normal', 'gauss']);
/** fio reads N with atoi into an unsigned int. */
const MAX_NR = 0xffffffff;

export const DEFAULT_FILE_SERVICE: FileServiceType = { kind: 'roundrobin', nr: 1 };

export function parseFileService(text: string, ctx: OptionContext): FileServiceType {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const word = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const postfix = colon < 0 ? undefined : trimmed.slice(colon + 1);
  if (DISTRIBUTIONS.has(word)) {
    throw unsupported(ctx.field, `file_service_type=${word} (files picked by a distribution) is not supported by volbench yet`,
      FILE_SERVICE_ACCEPTED);
  }
  if (!KINDS.has(word)) throw invalidValue(ctx.field, `'${text}' is not a valid file_service_type`, FILE_SERVICE_ACCEPTED);
  if (postfix === undefined) return { kind: word as FileServiceType['kind'], nr: 1 };
  // fio's atoi takes '0' or garbage as 0, which keeps one file for ever: refused instead.
  if (!/^\d+$/.test(postfix) || Number(postfix) < 1 || Number(postfix) > MAX_NR) {
    throw invalidValue(ctx.field, `'${postfix}' after '${word}:' is not a count of I/Os from 1 to ${MAX_NR}`, FILE_SERVICE_ACCEPTED);
  }
  return { kind: word as FileServiceType['kind'], nr: Number(postfix) };
}
