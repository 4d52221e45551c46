#!/usr/bin/env node
// Builds the zip that infra/cloudformation/lambda.yaml deploys:
//
//   npm run package:lambda -- [--out volbench-lambda.zip]
//
// The zip holds package.json, dist/, openapi.yaml, suites/, the production dependencies and the
// addon, built on this machine. Lambda's Node.js 22 and 24 runtimes run on Amazon Linux 2023:
// glibc 2.34 and GCC 11's libstdc++ (GLIBCXX_3.4.29), so every native module in the zip is
// checked against those symbol versions and the build fails if one needs newer ones (build on
// Amazon Linux 2023 or an older distribution then). volbench's addon is N-API and the store is
// Node's own node:sqlite, so one zip serves every supported Node runtime.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const LAMBDA_GLIBC = [2, 34];
const LAMBDA_GLIBCXX = [3, 4, 29];

function args(argv) {
  const out = { out: join(root, 'volbench-lambda.zip') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') out.out = resolve(argv[++i] ?? '');
    else if (argv[i].startsWith('--out=')) out.out = resolve(argv[i].slice(6));
    else throw new Error(`unknown argument ${argv[i]}; usage: package-lambda.mjs [--out FILE.zip]`);
  }
  return out;
}

function run(cmd, argv, cwd) {
  execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
}

const newer = (v, limit) => {
  for (let i = 0; i < Math.max(v.length, limit.length); i++) {
    if ((v[i] ?? 0) !== (limit[i] ?? 0)) return (v[i] ?? 0) > (limit[i] ?? 0);
  }
  return false;
};

/** The symbol versions a shared object needs that Amazon Linux 2023 does not have. */
export function tooNew(file) {
  const table = execFileSync('objdump', ['-T', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const problems = new Set();
  for (const [, lib, ver] of table.matchAll(/\b(GLIBC|GLIBCXX)_(\d+(?:\.\d+)*)\b/g)) {
    const v = ver.split('.').map(Number);
    if (newer(v, lib === 'GLIBC' ? LAMBDA_GLIBC : LAMBDA_GLIBCXX)) problems.add(`${lib}_${ver}`);
  }
  return [...problems];
}

function nativeModules(dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) nativeModules(p, found);
    else if (entry.name.endsWith('.node')) found.push(p);
  }
  return found;
}

function main() {
  const { out } = args(process.argv.slice(2));
  if (process.platform !== 'linux') throw new Error('build the Lambda zip on Linux');
  run('npm', ['run', 'build:ts', '--silent'], root);
  const stage = mkdtempSync(join(tmpdir(), 'volbench-lambda-'));
  try {
    const addon = join(root, 'build', 'Release', 'volbench.node');
    if (!existsSync(addon)) throw new Error(`${addon} is missing: build the addon first (npm ci, or npm run build:native)`);
    for (const item of ['package-lock.json', 'dist', 'openapi.yaml', 'suites']) {
      if (existsSync(join(root, item))) cpSync(join(root, item), join(stage, item), { recursive: true });
    }
    mkdirSync(join(stage, 'build', 'Release'), { recursive: true });
    cpSync(addon, join(stage, 'build', 'Release', 'volbench.node'));
    // The package's own scripts build from sources the zip does not carry (the addon is copied
    // above).
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    delete pkg.scripts;
    delete pkg.devDependencies;
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], stage);
    const modules = nativeModules(stage);
    if (!modules.some((m) => m.endsWith('volbench.node'))) throw new Error('the addon was not built (volbench.node missing)');
    const refused = modules.map((m) => [m, tooNew(m)]).filter(([, p]) => p.length);
    if (refused.length) {
      const list = refused.map(([m, p]) => `  ${m.slice(stage.length + 1)}: ${p.join(', ')}`).join('\n');
      throw new Error(`native modules need symbols Lambda's Amazon Linux 2023 lacks (glibc 2.34, GLIBCXX_3.4.29):\n${list}\n` +
        'build on Amazon Linux 2023 (or an older glibc) instead');
    }
    rmSync(out, { force: true });
    run('zip', ['-q', '-r', '-y', out, '.'], stage);
    process.stdout.write(`${out}: ${(statSync(out).size / 1048576).toFixed(1)} MiB, ${modules.length} native modules checked against glibc 2.34\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`package-lambda: ${err.message}\n`);
    process.exit(1);
  }
}
