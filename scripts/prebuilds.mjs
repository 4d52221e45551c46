#!/usr/bin/env node
// Builds the prebuilt addon binaries that ship inside the package (the release step):
//
//   npm run prebuilds [-- --arch x64|arm64] [--force]
//
// Each binary is built by node-gyp from binding.gyp (with -Dprebuild=1: libstdc++ and libgcc
// linked in statically, their symbols kept private) inside a Debian 11 root (glibc 2.31, GCC 10;
// scripts/debian-root.sh), arm64 with Debian's aarch64-linux-gnu cross compiler, against the
// headers of the pinned Node (scripts/node-versions.env; N-API 8, so one binary serves every
// supported Node). It is stripped of debug info, checked (its ELF architecture, no symbol version
// newer than Amazon Linux 2023's) and written to prebuilds/linux-<arch>/volbench.node, with the
// sources' fingerprint, size, sha256 and needed glibc in prebuilds/manifest.json. A binary whose
// recorded fingerprint matches native/ and binding.gyp is kept unless --force is given.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { addonSourcesHash } from '../install/addon-sources.mjs';
import { elfArch, glibcNeeded, tooNew } from './elf-check.mjs';
import { nodeVersions } from './node-versions.mjs';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const manifestPath = join(root, 'prebuilds', 'manifest.json');
const ARCHES = ['x64', 'arm64'];
const CROSS = { x64: '', arm64: 'aarch64-linux-gnu-' };
// The kernel's UAPI headers (io_uring's newer flags, openat2) come from Debian 12's packages,
// newer than Debian 11's 5.10: they declare constants and structures, not symbols, so the glibc a
// binary needs is still Debian 11's. Each is unpacked (not installed) beside the build root.
const UAPI = {
  x64: { pkg: 'linux-libc-dev:amd64', dirs: ['usr/include/x86_64-linux-gnu', 'usr/include'] },
  arm64: { pkg: 'linux-libc-dev-arm64-cross', dirs: ['usr/aarch64-linux-gnu/include'] },
};

function args(argv) {
  const out = { arches: ARCHES, force: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--force') out.force = true;
    else if (a === '--arch' || a.startsWith('--arch=')) {
      const v = a === '--arch' ? argv[++i] : a.slice(7);
      if (!ARCHES.includes(v)) throw new Error(`--arch must be x64 or arm64, not ${v ?? '(nothing)'}`);
      out.arches = [v];
    } else throw new Error(`unknown argument ${a}; usage: prebuilds.mjs [--arch x64|arm64] [--force]`);
  }
  return out;
}

const script = (name, ...argv) => execFileSync(join(root, 'scripts', name), argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

function readManifest() {
  return existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : { binaries: {} };
}

/** The unpacked UAPI headers for `arch`, fetched with this machine's apt and cached. */
function uapiHeaders(arch) {
  const { pkg } = UAPI[arch];
  const cache = join(process.env.VOLBENCH_CACHE ?? '/var/cache/volbench-ci', 'uapi-headers');
  const version = execFileSync('apt-cache', ['policy', pkg], { encoding: 'utf8' }).match(/Candidate: (\S+)/)?.[1];
  if (!version || version === '(none)') throw new Error(`apt knows no ${pkg}: run apt-get update`);
  const dir = join(cache, `${pkg.replace(':', '_')}_${version}`);
  if (!existsSync(join(dir, 'done'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('apt-get', ['download', '-q', '-o', 'APT::Sandbox::User=root', `${pkg}=${version}`], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
    execFileSync('dpkg-deb', ['-x', join(dir, deb), join(dir, 'root')]);
    rmSync(join(dir, deb));
    writeFileSync(join(dir, 'done'), `${pkg} ${version}\n`);
  }
  return { dir: join(dir, 'root'), label: `${pkg.split(':')[0]} ${version}` };
}

/** node-gyp inside the root, in a mount namespace of its own that lends it node_modules and Node. */
function buildInRoot(debRoot, nodeDir, uapi, arch) {
  const work = mkdtempSync(join(debRoot, 'tmp', 'volbench-prebuild-'));
  const inside = work.slice(debRoot.length);
  try {
    cpSync(join(root, 'binding.gyp'), join(work, 'binding.gyp'));
    cpSync(join(root, 'native'), join(work, 'native'), { recursive: true });
    symlinkSync('/mnt/volbench/node_modules', join(work, 'node_modules'));
    const cross = CROSS[arch];
    const env = [
      'PATH=/opt/volbench-node/bin:/usr/sbin:/usr/bin:/sbin:/bin', `HOME=${inside}`, 'LC_ALL=C',
      `CPPFLAGS='${UAPI[arch].dirs.map((d) => `-isystem /opt/volbench-uapi/${d}`).join(' ')}'`,
      ...(cross ? [`CC=${cross}gcc`, `CXX=${cross}g++`, `AR=${cross}ar`, `LINK=${cross}g++`] : []),
    ];
    const gyp = 'node /mnt/volbench/node_modules/node-gyp/bin/node-gyp.js';
    const build = [
      'set -e', `cd ${inside}`,
      `${gyp} configure --nodedir=/opt/volbench-node --arch=${arch} -- -Dprebuild=1`,
      `${gyp} build --jobs=${process.env.JOBS ?? 'max'}`,
      `${cross}strip --strip-debug build/Release/volbench.node`,
    ].join('\n');
    writeFileSync(join(work, 'build.sh'), `${build}\n`);
    const mounts = [
      'set -e', `r=${JSON.stringify(debRoot)}`,
      'mkdir -p "$r/mnt/volbench/node_modules" "$r/opt/volbench-node" "$r/opt/volbench-uapi"',
      `mount --bind -o ro ${JSON.stringify(uapi)} "$r/opt/volbench-uapi"`,
      `mount --bind -o ro ${JSON.stringify(join(root, 'node_modules'))} "$r/mnt/volbench/node_modules"`,
      `mount --bind -o ro ${JSON.stringify(nodeDir)} "$r/opt/volbench-node"`,
      'mount -t proc proc "$r/proc"', 'mount --bind /dev "$r/dev"',
      `exec chroot "$r" /usr/bin/env -i ${env.join(' ')} /bin/sh ${inside}/build.sh`,
    ].join('\n');
    execFileSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', mounts], { stdio: ['ignore', 'inherit', 'inherit'] });
    const out = join(root, 'build', `prebuild-${arch}.node`);
    mkdirSync(join(root, 'build'), { recursive: true });
    copyFileSync(join(work, 'build', 'Release', 'volbench.node'), out);
    return out;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The versions of the root's toolchain, as the manifest records them. */
function toolchain(debRoot, arch, uapi) {
  const packages = Object.fromEntries(
    readFileSync(`${debRoot}.packages`, 'utf8').trim().split('\n').map((l) => l.split(' ')),
  );
  const gxx = arch === 'x64' ? 'g++-10' : 'g++-10-aarch64-linux-gnu';
  const libc = arch === 'x64' ? 'libc6-dev' : 'libc6-dev-arm64-cross';
  return `Debian 11 ${gxx} ${packages[gxx]}, ${libc} ${packages[libc]}; Debian 12 ${uapi}`;
}

function check(file, arch) {
  const got = elfArch(file);
  if (got !== arch) throw new Error(`${file} is built for ${got}, not ${arch}`);
  const newer = tooNew(file);
  if (newer.length) throw new Error(`${file} needs ${newer.join(', ')}, newer than Amazon Linux 2023 has`);
}

function main() {
  const { arches, force } = args(process.argv.slice(2));
  const sources = addonSourcesHash(root);
  const manifest = readManifest();
  const stale = arches.filter((arch) => {
    const entry = manifest.binaries[`linux-${arch}`];
    const file = join(root, 'prebuilds', `linux-${arch}`, 'volbench.node');
    return force || !entry || entry.sources !== sources || !existsSync(file) || sha256(file) !== entry.sha256;
  });
  if (!stale.length) {
    process.stdout.write(`prebuilds for ${arches.join(', ')} are up to date with native/ (${sources.slice(0, 12)})\n`);
    return;
  }
  const node = nodeVersions().NODE_BUNDLE;
  const nodeDir = script('node-dist.sh', node, 'x64');
  const debRoot = script('debian-root.sh', '--preset', 'build');
  for (const arch of stale) {
    const uapi = uapiHeaders(arch);
    const built = buildInRoot(debRoot, nodeDir, uapi.dir, arch);
    check(built, arch);
    const dest = join(root, 'prebuilds', `linux-${arch}`, 'volbench.node');
    mkdirSync(join(dest, '..'), { recursive: true });
    copyFileSync(built, dest);
    manifest.binaries[`linux-${arch}`] = {
      file: `linux-${arch}/volbench.node`,
      libc: 'glibc',
      glibc: glibcNeeded(dest),
      sources,
      sha256: sha256(dest),
      bytes: statSync(dest).size,
      napi: 8,
      nodeHeaders: node,
      toolchain: toolchain(debRoot, arch, uapi.label),
    };
    process.stdout.write(`prebuilds/linux-${arch}/volbench.node: ${statSync(dest).size} bytes, glibc ${manifest.binaries[`linux-${arch}`].glibc}+\n`);
  }
  const ordered = Object.fromEntries(Object.entries(manifest.binaries).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(manifestPath, `${JSON.stringify({ binaries: ordered }, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`prebuilds: ${err.message}\n`);
    process.exit(1);
  }
}
