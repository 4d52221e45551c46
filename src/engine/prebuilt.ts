/**
 * Which prebuilt addon binary fits this system. The package carries one per architecture under
 * prebuilds/ (linux-x64, linux-arm64), listed in prebuilds/manifest.json with the glibc each
 * needs (scripts/prebuilds.mjs makes both). They are linked against glibc, so a musl system
 * (Alpine) is refused with a reason, as is a glibc older than a binary needs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PrebuiltEntry {
  file: string;
  libc: 'glibc';
  glibc: string;
}

export interface Platform {
  platform: string;
  arch: string;
  /** The running glibc's version ("2.36"), or undefined where the C library is not glibc. */
  glibc: string | undefined;
}

export type PrebuiltChoice = { path: string } | { refused: string };

const BUILD_HINT = 'build from source with "VOLBENCH_BUILD_FROM_SOURCE=1 npm rebuild volbench" (needs a C++17 compiler, make and python3)';

function older(have: string, need: string): boolean {
  const a = have.split('.').map(Number);
  const b = need.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  }
  return false;
}

/** The prebuilt binary under `dir` for `host`, or why there is none. */
export function choosePrebuilt(dir: string, host: Platform): PrebuiltChoice {
  const key = `${host.platform}-${host.arch}`;
  if (host.platform !== 'linux') return { refused: `volbench runs on Linux only, not on ${host.platform}` };
  if (host.glibc === undefined) {
    return { refused: `this system's C library is not glibc (musl, as on Alpine?): volbench's addon is built for glibc 2.31 or newer (Debian 11+, Ubuntu 20.04+, Amazon Linux 2023, RHEL 9); musl is not supported` };
  }
  let entries: Record<string, PrebuiltEntry>;
  try {
    entries = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { binaries: Record<string, PrebuiltEntry> }).binaries;
  } catch {
    return { refused: `no prebuilt binaries in this package (${join(dir, 'manifest.json')} unreadable); ${BUILD_HINT}` };
  }
  const entry = entries[key];
  if (!entry) return { refused: `no prebuilt binary for ${key} (there are ${Object.keys(entries).join(', ')}); ${BUILD_HINT}` };
  if (older(host.glibc, entry.glibc)) {
    return { refused: `the prebuilt binary for ${key} needs glibc ${entry.glibc}, this system has ${host.glibc}; ${BUILD_HINT}` };
  }
  const path = join(dir, entry.file);
  if (!existsSync(path)) return { refused: `the prebuilt binary ${path} is missing; ${BUILD_HINT}` };
  return { path };
}

/** This process's platform, architecture and glibc version. */
export function hostPlatform(): Platform {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return { platform: process.platform, arch: process.arch, glibc: header?.glibcVersionRuntime };
}
