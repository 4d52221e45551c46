#!/usr/bin/env node
// The costly things CI and the tests make, each kept under $VOLBENCH_CACHE/artefacts/KIND/KEY/ and
// made again only when what it is made from changes (KEY is a sha256 of those inputs):
//
//   addon     build/Release/volbench.node (npm run build:native): binding.gyp and native/ (the
//             fingerprint of install/addon-sources.mjs), the Node headers, the compiler, node-gyp
//   asan      build-asan/build/Release/volbench.node (npm run build:asan): the same, and its script
//   tarball   npm pack of this checkout: every file it packs, by content (dist/ as built from src/,
//             package.json, the install step under install/, prebuilds/ ...), and npm's version
//   bundle    npm run bundle for one architecture: the tarball, package-lock.json, the bundled Node
//             and the scripts that stage and pack it
//   lambda    npm run package:lambda for one architecture: the tarball, package-lock.json and the
//             scripts that stage and zip it
//
//   node scripts/artefacts.mjs addon|asan       restores the build from the cache, or builds it and keeps it
//   node scripts/artefacts.mjs tarball          prints the packed tarball's path
//   node scripts/artefacts.mjs bundle x64|arm64 prints the directory holding the bundle's .tar.gz and .sha256
//   node scripts/artefacts.mjs lambda x64|arm64 prints the Lambda zip's path
//
// A cached artefact is the same bytes the build would make: nothing is skipped, only not made twice.
// Without VOLBENCH_CACHE, artefacts go to a directory of this process that nobody reuses.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { addonSourcesHash } from '../install/addon-sources.mjs';
import { ensureDist } from './stage-package.mjs';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const exec = promisify(execFile);
/** Entries kept per kind; older ones (by last use) are removed. */
const KEEP = 4;

/** @type {string | undefined} */
let scratch;
/** Where artefacts live: VOLBENCH_CACHE/artefacts, or a directory of this process. */
export function cacheRoot() {
  if (process.env.VOLBENCH_CACHE) return join(process.env.VOLBENCH_CACHE, 'artefacts');
  scratch ??= mkdtempSync(join(tmpdir(), `volbench-artefacts-${process.pid}-`));
  return scratch;
}

const sha256 = (/** @type {Array<string | Buffer>} */ ...parts) => {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(`${p.length}\0`).update(p);
  return hash.digest('hex');
};
const fileText = (/** @type {string} */ path) => readFileSync(join(root, path));
const version = (/** @type {string} */ cmd, /** @type {string[]} */ args) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * The entry KIND/KEY: its directory when it exists, else made by `make(dir)` into a directory of
 * its own and renamed into place (a run that dies half-way leaves nothing a later run would take).
 * @param {string} kind
 * @param {string} key
 * @param {(work: string) => Promise<void>} make
 * @returns {Promise<{ dir: string; reused: boolean }>}
 */
async function cached(kind, key, make) {
  const dir = join(cacheRoot(), kind, key);
  if (existsSync(join(dir, '.complete'))) {
    const now = new Date();
    utimesSync(dir, now, now);
    return { dir, reused: true };
  }
  mkdirSync(join(cacheRoot(), kind), { recursive: true });
  const work = mkdtempSync(join(cacheRoot(), kind, `.${key.slice(0, 12)}-${process.pid}-`));
  try {
    await make(work);
    writeFileSync(join(work, '.complete'), `${new Date().toISOString()}\n`);
    // Another run may have made the same entry meanwhile: its copy stays (it may be reading it).
    if (!existsSync(join(dir, '.complete'))) rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    if (!existsSync(join(dir, '.complete'))) throw err;
  }
  prune(kind);
  return { dir, reused: false };
}

/**
 * Keeps the KEEP entries of `kind` used last.
 * @param {string} kind
 */
function prune(kind) {
  const base = join(cacheRoot(), kind);
  const entries = readdirSync(base).filter((n) => !n.startsWith('.')).map((n) => ({ n, t: statSync(join(base, n)).mtimeMs })).sort((a, b) => b.t - a.t);
  for (const { n } of entries.slice(KEEP)) rmSync(join(base, n), { recursive: true, force: true });
}

/** What decides the addon's binary besides its sources: the Node headers, the compiler and its flags, node-gyp. */
function toolchain() {
  const cxx = process.env.CXX ?? 'g++';
  const nodeGyp = JSON.parse(readFileSync(join(root, 'node_modules', 'node-gyp', 'package.json'), 'utf8')).version;
  const env = ['CXX', 'CC', 'CXXFLAGS', 'CFLAGS', 'LDFLAGS', 'npm_config_nodedir'].map((k) => `${k}=${process.env[k] ?? ''}`);
  return [process.version, version(cxx, ['--version']), `node-gyp ${nodeGyp}`, ...env].join('\n');
}

/** @type {Record<'addon' | 'asan', { script: string; out: string; inputs: string[] }>} */
const BUILDS = {
  addon: { script: 'build:native', out: join('build', 'Release', 'volbench.node'), inputs: [] },
  asan: { script: 'build:asan', out: join('build-asan', 'build', 'Release', 'volbench.node'), inputs: ['scripts/build-asan.mjs'] },
};

/**
 * The addon build `kind` (addon, asan) in place, from the cache when its inputs are unchanged.
 * @param {keyof typeof BUILDS} kind
 * @returns {Promise<{ path: string; reused: boolean; key: string }>}
 */
export async function addonBuild(kind) {
  const build = BUILDS[kind];
  const key = sha256(kind, addonSourcesHash(root), toolchain(), ...build.inputs.map(fileText));
  const { dir, reused } = await cached(kind, key, async (work) => {
    execFileSync('npm', ['run', build.script, '--silent'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    copyFileSync(join(root, build.out), join(work, 'volbench.node'));
  });
  if (reused) {
    mkdirSync(join(root, build.out, '..'), { recursive: true });
    copyFileSync(join(dir, 'volbench.node'), join(root, build.out));
  }
  return { path: join(root, build.out), reused, key };
}

/**
 * The files `npm pack` would pack, by path, mode and content: the tarball's inputs.
 * @returns {Promise<string>}
 */
async function tarballKey() {
  ensureDist();
  const { stdout } = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 64 << 20 });
  /** @type {[{ files: Array<{ path: string }> }]} */
  const [packed] = JSON.parse(stdout);
  const files = packed.files.map((f) => f.path).sort();
  const npm = (await exec('npm', ['--version'])).stdout.trim();
  return sha256(`npm ${npm}`, ...files.flatMap((f) => [f, String(statSync(join(root, f)).mode & 0o111), readFileSync(join(root, f))]));
}

/** @typedef {{ path: string; reused: boolean; key: string }} Packed */
/** @type {Promise<Packed> | undefined} */
let packing;
/**
 * `npm pack` of this checkout: the .tgz's path (found or made once per process).
 * @returns {Promise<Packed>}
 */
export function tarball() {
  packing ??= packOnce();
  return packing;
}

/** @returns {Promise<Packed>} */
async function packOnce() {
  const key = await tarballKey();
  const { dir, reused } = await cached('tarball', key, async (work) => {
    await exec('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: root, maxBuffer: 64 << 20 });
  });
  const [name] = readdirSync(dir).filter((n) => n.endsWith('.tgz'));
  return { path: join(dir, name), reused, key };
}

/**
 * `npm run bundle -- --arch ARCH` of that tarball: the directory holding the bundle's .tar.gz and
 * .sha256, and `made.json` (what the script wrote beside them: its tree, which is not kept).
 * @param {string} arch
 * @returns {Promise<{ dir: string; reused: boolean; key: string }>}
 */
export async function bundle(arch) {
  if (arch !== 'x64' && arch !== 'arm64') throw new Error(`bundle: arch x64 or arm64, not ${arch}`);
  const packed = await tarball();
  const scripts = ['scripts/bundle.mjs', 'scripts/stage-package.mjs', 'scripts/elf-check.mjs', 'scripts/node-versions.env', 'scripts/node-dist.sh', 'package-lock.json'];
  const key = sha256(arch, packed.key, ...scripts.map(fileText));
  const { dir, reused } = await cached(`bundle-${arch}`, key, async (work) => {
    const out = join(work, 'out');
    await exec(process.execPath, [join(root, 'scripts', 'bundle.mjs'), '--arch', arch, '--out', out, '--tarball', packed.path], { cwd: root, maxBuffer: 64 << 20 });
    const made = readdirSync(out).sort();
    for (const name of made.filter((n) => n.endsWith('.tar.gz') || n.endsWith('.sha256'))) renameSync(join(out, name), join(work, name));
    rmSync(out, { recursive: true, force: true });
    writeFileSync(join(work, 'made.json'), `${JSON.stringify({ arch, made, tarball: packed.path }, null, 2)}\n`);
  });
  return { dir, reused, key };
}

/**
 * `npm run package:lambda -- --arch ARCH` of that tarball: the path of volbench-lambda-ARCH.zip.
 * @param {string} arch
 * @returns {Promise<{ path: string; reused: boolean; key: string }>}
 */
export async function lambdaZip(arch) {
  if (arch !== 'x64' && arch !== 'arm64') throw new Error(`lambda: arch x64 or arm64, not ${arch}`);
  const packed = await tarball();
  const scripts = ['scripts/package-lambda.mjs', 'scripts/stage-package.mjs', 'scripts/elf-check.mjs', 'package-lock.json'];
  const key = sha256(arch, packed.key, ...scripts.map(fileText));
  const { dir, reused } = await cached(`lambda-${arch}`, key, async (work) => {
    const zip = join(work, `volbench-lambda-${arch}.zip`);
    await exec(process.execPath, [join(root, 'scripts', 'package-lambda.mjs'), '--arch', arch, '--out', zip, '--tarball', packed.path], { cwd: root, maxBuffer: 64 << 20 });
  });
  return { path: join(dir, `volbench-lambda-${arch}.zip`), reused, key };
}

/** @param {string[]} argv */
async function main(argv) {
  const [what, arg] = argv;
  if (what === 'addon' || what === 'asan') {
    const { path, reused, key } = await addonBuild(what);
    console.error(`artefacts: ${what} ${reused ? 'reused from the cache' : 'built and kept'} (${key.slice(0, 12)}): ${path}`);
  } else if (what === 'tarball') console.log((await tarball()).path);
  else if (what === 'bundle') console.log((await bundle(arg)).dir);
  else if (what === 'lambda') console.log((await lambdaZip(arg)).path);
  else throw new Error(`usage: node scripts/artefacts.mjs addon|asan|tarball|bundle x64|arm64|lambda x64|arm64, not ${argv.join(' ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`artefacts: ${err.message}`);
    process.exit(1);
  });
}
