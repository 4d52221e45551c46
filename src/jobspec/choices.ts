/**
 * Options whose value is one word from a list (fio's posval tables in options.c). Each list has
 * the words volbench supports and the words fio also knows, which are refused as "not supported
 * yet" rather than as typos.
 */
import { ENGINE_NAMES } from '../engine/engines.js';
import type { EngineName, JobOptions, RwMode } from './types.js';
import { invalidValue, unsupported } from './fail.js';
import { hasOwnKey } from '../own-key.js';
import { closestName } from './suggest.js';

export interface Choice<T> {
  /** Supported words, as fio spells them (case matters, as in fio). */
  values: Readonly<Record<string, T>>;
  /** Words fio 3.33 accepts that volbench does not support yet. */
  fioOnly: readonly string[];
}

export function choiceAccepted<T>(choice: Choice<T>): string {
  return `one of ${Object.keys(choice.values).join(', ')}`;
}

export function parseChoice<T>(text: string, choice: Choice<T>, ctx: { field: string; option: string }): T {
  const word = text.trim();
  if (hasOwnKey(choice.values, word)) return choice.values[word];
  if (choice.fioOnly.includes(word)) {
    throw unsupported(ctx.field, `${ctx.option}=${word} is not supported by volbench yet`, choiceAccepted(choice));
  }
  const near = closestName(word, [...Object.keys(choice.values), ...choice.fioOnly]);
  throw invalidValue(ctx.field, `'${text}' is not a valid ${ctx.option}${near ? `; did you mean '${near}'?` : ''}`, choiceAccepted(choice));
}

export const RW_CHOICE: Choice<RwMode> = {
  values: {
    read: 'read', write: 'write', trim: 'trim', randread: 'randread', randwrite: 'randwrite',
    randtrim: 'randtrim', rw: 'rw', readwrite: 'rw', randrw: 'randrw',
  },
  fioOnly: ['trimwrite', 'randtrimwrite'],
};

export const IOENGINE_CHOICE: Choice<EngineName> = {
  values: Object.fromEntries(ENGINE_NAMES.map((name) => [name, name])) as Record<EngineName, EngineName>,
  // options.c `ioengine` posval plus the names engines/*.c register in fio 3.33.
  fioOnly: [
    'vsync', 'pvsync', 'pvsync2', 'io_uring_cmd', 'posixaio', 'solarisaio', 'windowsaio', 'rbd', 'mmap',
    'splice', 'netsplice', 'sg', 'net', 'cpuio', 'rdma', 'librpma_apm', 'librpma_gpspm',
    'librpma_apm_client', 'librpma_apm_server', 'librpma_gpspm_client', 'librpma_gpspm_server',
    'e4defrag', 'falloc', 'gfapi', 'gfapi_async', 'libhdfs', 'pmemblk', 'ime_psync', 'ime_psyncv',
    'ime_aio', 'dev-dax', 'filecreate', 'filestat', 'filedelete', 'external', 'libpmem', 'http', 'nbd',
    'dfs', 'nfs', 'xnvme', 'exec', 'ftruncate', 'libcufile', 'libiscsi', 'libzbc', 'mtd', 'rados',
  ],
};

export const VERIFY_CHOICE: Choice<JobOptions['verify']> = {
  // fio 3.33 spells "no verification" only as 0; volbench also takes none.
  values: { '0': 'none', none: 'none', crc32c: 'crc32c', 'crc32c-intel': 'crc32c', md5: 'md5' },
  fioOnly: [
    'crc64', 'crc32', 'crc16', 'crc7', 'sha1', 'sha256', 'sha512', 'sha3-224', 'sha3-256',
    'sha3-384', 'sha3-512', 'xxhash', 'meta', 'pattern', 'null',
  ],
};

export const SYNC_CHOICE: Choice<JobOptions['sync']> = {
  values: { none: 'none', '0': 'none', sync: 'sync', '1': 'sync', dsync: 'dsync' },
  fioOnly: [],
};

export const CPUS_ALLOWED_POLICY_CHOICE: Choice<JobOptions['cpus_allowed_policy']> = {
  values: { shared: 'shared', split: 'split' },
  fioOnly: [],
};

export const FALLOCATE_CHOICE: Choice<JobOptions['fallocate']> = {
  values: { none: 'none', native: 'native', posix: 'posix', keep: 'keep', truncate: 'truncate', '0': 'none', '1': 'posix' },
  fioOnly: [],
};

/**
 * fadvise_hint: 1 advises the kernel of the job's own pattern (random or sequential access), as
 * fio does by default; 0 gives no advice (the kernel's readahead applies).
 */
export const FADVISE_HINT_CHOICE: Choice<JobOptions['fadvise_hint']> = {
  values: { '0': 'none', '1': 'pattern', random: 'random', sequential: 'sequential' },
  fioOnly: [],
};

export const UNIFIED_RW_REPORTING_CHOICE: Choice<JobOptions['unified_rw_reporting']> = {
  values: { none: 'none', mixed: 'mixed', both: 'both', '0': 'none', '1': 'mixed', '2': 'both' },
  fioOnly: [],
};

export const KB_BASE_CHOICE: Choice<JobOptions['kb_base']> = {
  values: { '1024': 1024, '1000': 1000 },
  fioOnly: [],
};

export const RATE_PROCESS_CHOICE: Choice<JobOptions['rate_process']> = {
  values: { linear: 'linear', poisson: 'poisson' },
  fioOnly: [],
};
