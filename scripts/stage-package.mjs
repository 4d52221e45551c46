// The package as it runs in a bundle or a Lambda zip, for one architecture: what `npm pack` ships,
// its production dependencies from package-lock.json (no install scripts run, none are needed),
// and only that architecture's prebuilt addon. The sources (native/, binding.gyp) and the install
// script stay out: nothing is built where these run. Every native module staged is checked
// against Amazon Linux 2023's symbol versions and the architecture asked for.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { elfArch, tooNew } from './elf-check.mjs';

export const root = resolve(fileURLToPath(import.meta.url), '..', '..');
export const ARCHES = ['x64', 'arm64'];

/**
 * `--arch x64|arm64` (required), `--out PATH` and `--tarball FILE` (npm pack's, packed already) from `argv`.
 * @param {string[]} argv
 * @param {string} usage
 * @returns {{ arch: string; out: string | undefined; tarball: string | undefined }}
 */
export function archAndOut(argv, usage) {
  /** @type {{ arch: string | undefined; out: string | undefined; tarball: string | undefined }} */
  const out = { arch: undefined, out: undefined, tarball: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (flag === '--arch') out.arch = value();
    else if (flag === '--out') out.out = resolve(value() ?? '');
    else if (flag === '--tarball') out.tarball = resolve(value() ?? '');
    else throw new Error(`unknown argument ${argv[i]}; usage: ${usage}`);
  }
  if (out.arch === undefined || !ARCHES.includes(out.arch)) throw new Error(`--arch must be x64 or arm64${out.arch ? `, not ${out.arch}` : ''}; usage: ${usage}`);
  return { arch: out.arch, out: out.out, tarball: out.tarball };
}

/**
 * @param {string} cmd
 * @param {string[]} argv
 * @param {string} cwd
 * @param {NodeJS.ProcessEnv} [env]
 */
export function run(cmd, argv, cwd, env = process.env) {
  execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env });
}

/**
 * @param {string} dir
 * @param {(name: string) => boolean} test
 * @param {string[]} [out]
 * @returns {string[]}
 */
function filesUnder(dir, test, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(p, test, out);
    else if (test(entry.name)) out.push(p);
  }
  return out;
}

/**
 * Bytes of every regular file under `dir` (what Lambda counts as unzipped size).
 * @param {string} dir
 * @returns {number}
 */
export function treeBytes(dir) {
  return filesUnder(dir, () => true).reduce((sum, f) => sum + statSync(f).size, 0);
}

/**
 * Throws unless every .node under `dir` is for `arch` and needs nothing newer than AL2023's.
 * @param {string} dir
 * @param {string} arch
 * @returns {string[]}
 */
export function checkNativeModules(dir, arch) {
  const modules = filesUnder(dir, (name) => name.endsWith('.node'));
  const problems = [];
  for (const m of modules) {
    const got = elfArch(m);
    if (got !== arch) problems.push(`${relative(dir, m)}: built for ${got}`);
    const newer = tooNew(m);
    if (newer.length) problems.push(`${relative(dir, m)}: needs ${newer.join(', ')}`);
  }
  if (problems.length) throw new Error(`native modules that would not load on Amazon Linux 2023 ${arch}:\n  ${problems.join('\n  ')}`);
  return modules;
}

/** Compiles src/ into dist/ unless dist/ is newer than every source file (as make would). */
export function ensureDist() {
  const newest = (/** @type {string} */ dir, /** @type {string} */ ext) => filesUnder(dir, (n) => n.endsWith(ext)).reduce((m, f) => Math.max(m, statSync(f).mtimeMs), 0);
  let built = 0;
  try {
    const times = filesUnder(join(root, 'dist'), (n) => n.endsWith('.js')).map((f) => statSync(f).mtimeMs);
    if (times.length) built = Math.min(...times);
  } catch {
    built = 0;
  }
  if (!(built > newest(join(root, 'src'), '.ts'))) run('npm', ['run', 'build:ts', '--silent'], root);
}

/**
 * The package for `arch`, installed for production into `dest` (made empty first): from
 * `tarball` when given (npm pack's, of this checkout: the tests pack once per run), else packed now.
 * @param {string} dest
 * @param {string} arch
 * @param {string} [tarball]
 * @returns {{ version: string; modules: string[] }}
 */
export function stagePackage(dest, arch, tarball) {
  const tmp = mkdtempSync(join(tmpdir(), 'volbench-stage-'));
  try {
    if (!tarball) {
      ensureDist();
      const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], { cwd: root, encoding: 'utf8' }));
      tarball = join(tmp, packed.filename);
    }
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    run('tar', ['xzf', tarball, '-C', dest, '--strip-components=1'], root);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  cpSync(join(root, 'package-lock.json'), join(dest, 'package-lock.json'));
  run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--os=linux', `--cpu=${arch}`, '--loglevel=error'], dest);

  // Only this architecture's binary, and a manifest that lists only it.
  const manifestPath = join(dest, 'prebuilds', 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const key = `linux-${arch}`;
  if (!manifest.binaries[key]) throw new Error(`prebuilds/manifest.json has no ${key}: run npm run prebuilds`);
  for (const other of Object.keys(manifest.binaries).filter((k) => k !== key)) rmSync(join(dest, 'prebuilds', other), { recursive: true, force: true });
  manifest.binaries = { [key]: manifest.binaries[key] };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  for (const p of ['native', 'binding.gyp', 'install']) rmSync(join(dest, p), { recursive: true, force: true });
  const pkg = JSON.parse(readFileSync(join(dest, 'package.json'), 'utf8'));
  delete pkg.scripts;
  delete pkg.devDependencies;
  writeFileSync(join(dest, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

  const modules = checkNativeModules(dest, arch);
  if (!modules.some((m) => m.endsWith(join('prebuilds', key, 'volbench.node')))) throw new Error(`the ${key} addon is missing from the staged package`);
  return { version: pkg.version, modules };
}
