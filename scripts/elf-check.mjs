// What a shared object needs from the system it loads on, read with objdump: the symbol versions
// beyond Amazon Linux 2023's (the floor of every prebuilt binary, bundle and Lambda zip: glibc 2.34
// and GCC 11's libstdc++, GLIBCXX_3.4.29 and CXXABI_1.3.13, and its libgcc_s), and the
// architecture its ELF header names.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The newest symbol version of each library Amazon Linux 2023 provides.
 * @type {Record<'GLIBC' | 'GLIBCXX' | 'CXXABI' | 'GCC', number[]>}
 */
export const AL2023_LIMITS = { GLIBC: [2, 34], GLIBCXX: [3, 4, 29], CXXABI: [1, 3, 13], GCC: [11, 99, 99] };

/**
 * Whether version `v` is above `limit`, part by part.
 * @param {number[]} v
 * @param {number[]} limit
 */
const newer = (v, limit) => {
  for (let i = 0; i < Math.max(v.length, limit.length); i++) {
    if ((v[i] ?? 0) !== (limit[i] ?? 0)) return (v[i] ?? 0) > (limit[i] ?? 0);
  }
  return false;
};

/**
 * Every versioned symbol reference in `objdump -T` of `file`, as `LIB_x.y`, sorted and unique.
 * @param {string} file
 * @returns {string[]}
 */
export function symbolVersions(file) {
  const table = execFileSync('objdump', ['-T', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const found = new Set();
  for (const [, lib, ver] of table.matchAll(/\b(GLIBC|GLIBCXX|CXXABI|GCC)_(\d+(?:\.\d+)*)\b/g)) found.add(`${lib}_${ver}`);
  return [...found].sort();
}

/**
 * The symbol versions a shared object needs that Amazon Linux 2023 does not have.
 * @param {string} file
 * @returns {string[]}
 */
export function tooNew(file) {
  return symbolVersions(file).filter((name) => {
    // symbolVersions names only these four libraries.
    const [, lib, ver] = /** @type {[string, keyof typeof AL2023_LIMITS, string]} */ (/** @type {unknown} */ (/^([A-Z]+)_(.*)$/.exec(name)));
    return newer(ver.split('.').map(Number), AL2023_LIMITS[lib]);
  });
}

/**
 * The newest GLIBC_x.y `file` needs ("2.17" when it names none newer), for the manifest.
 * @param {string} file
 * @returns {string}
 */
export function glibcNeeded(file) {
  const versions = symbolVersions(file)
    .filter((n) => n.startsWith('GLIBC_'))
    .map((n) => n.slice(6).split('.').map(Number));
  const max = versions.reduce((a, v) => (newer(v, a) ? v : a), [2, 17]);
  return max.join('.');
}

/** @type {Record<number, string>} */
const MACHINES = { 62: 'x64', 183: 'arm64' };

/**
 * The architecture (x64, arm64, or `machine N`) in the ELF header of `file`.
 * @param {string} file
 * @returns {string}
 */
export function elfArch(file) {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (header.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${file} is not an ELF file`);
  const machine = header.readUInt16LE(18);
  return MACHINES[machine] ?? `machine ${machine}`;
}
