#!/usr/bin/env node
// One self-contained volbench per architecture, for machines that have no Node and no network
// (a fleet member at boot):
//
//   npm run bundle -- --arch x64|arm64 [--out DIR] [--tarball FILE]     (DIR: bundles/ by default)
//
// --tarball: stage that `npm pack` of this checkout instead of packing it again.
//
// writes DIR/volbench-VERSION-linux-ARCH/ (the tree), DIR/volbench-VERSION-linux-ARCH.tar.gz and
// DIR/volbench-VERSION-linux-ARCH.tar.gz.sha256. Inside the tree:
//
//   bin/volbench        the launcher (POSIX sh): runs the CLI with the bundle's own Node
//   node/bin/node       Node (scripts/node-versions.env NODE_BUNDLE), from the npm registry's
//                       node-linux-ARCH package, with its LICENSE
//   lib/volbench/       the package installed for production: dist/, the prebuilt addon for ARCH,
//                       node_modules/, suites/, catalog/, web/, openapi.yaml
//   BUNDLE.md           this layout, how to run the service, how to check the download
//
// The bundle needs glibc 2.30 or newer (Debian 11, Amazon Linux 2023), nothing else; docs/bundle.md
// says how to use it.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';

import { nodeVersions } from './node-versions.mjs';
import { archAndOut, root, run, stagePackage } from './stage-package.mjs';

const USAGE = 'npm run bundle -- --arch x64|arm64 [--out DIR] [--tarball FILE]';

const LAUNCHER = `#!/bin/sh
# volbench's launcher: the bundle's own Node runs the CLI. Call it by any path or through a
# symlink; it needs only /bin/sh and coreutils (readlink, dirname).
self=$(readlink -f -- "$0") || exit 127
here=$(dirname -- "$(dirname -- "$self")")
exec "$here/node/bin/node" "$here/lib/volbench/dist/cli/main.js" "$@"
`;

function readme(name, version, arch, node) {
  return `# ${name}

volbench ${version} for Linux ${arch} (glibc 2.30 or newer: Debian 11+, Ubuntu 20.04+, Amazon
Linux 2023, RHEL 9), with its own Node.js ${node}. Nothing else is needed: no Node, no npm, no
compiler, no network.

    bin/volbench        the launcher: run it by its path, or link it into PATH
    node/bin/node       Node.js ${node} (see node/LICENSE)
    lib/volbench/       volbench, its production dependencies and its prebuilt native addon

Run a job, or the HTTP service:

    ${name}/bin/volbench run --name=t --filename=/data/vb.bin --size=1g --rw=randread --bs=4k --runtime=30 --time_based
    VOLBENCH_TOKEN=... ${name}/bin/volbench serve --host 0.0.0.0 --port 8080 --target-root /data

Check a download before unpacking it (the .sha256 file sits beside the tarball):

    sha256sum -c ${name}.tar.gz.sha256 && tar xzf ${name}.tar.gz
`;
}

/** sha256 of a file, streamed (the tarball is tens of MiB). */
function sha256(file) {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    createReadStream(file).on('data', (d) => hash.update(d)).on('error', reject).on('end', () => resolvePromise(hash.digest('hex')));
  });
}

async function main() {
  const { arch, out = join(root, 'bundles'), tarball: packed } = archAndOut(process.argv.slice(2), USAGE);
  const node = nodeVersions().NODE_BUNDLE;
  const nodeDir = execFileSync(join(root, 'scripts', 'node-dist.sh'), [node, arch], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

  mkdirSync(out, { recursive: true });
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const name = `volbench-${version}-linux-${arch}`;
  const tree = join(out, name);
  rmSync(tree, { recursive: true, force: true });
  const { version: staged } = stagePackage(join(tree, 'lib', 'volbench'), arch, packed);
  if (staged !== version) throw new Error(`staged volbench ${staged}, expected ${version}`);

  mkdirSync(join(tree, 'node', 'bin'), { recursive: true });
  copyFileSync(join(nodeDir, 'bin', 'node'), join(tree, 'node', 'bin', 'node'));
  chmodSync(join(tree, 'node', 'bin', 'node'), 0o755);
  cpSync(join(nodeDir, 'LICENSE'), join(tree, 'node', 'LICENSE'));
  mkdirSync(join(tree, 'bin'));
  writeFileSync(join(tree, 'bin', 'volbench'), LAUNCHER, { mode: 0o755 });
  writeFileSync(join(tree, 'BUNDLE.md'), readme(name, version, arch, node));

  // The same tree always packs to the same bytes: sorted names, no owners, one fixed time.
  const tarball = join(out, `${name}.tar.gz`);
  const mtime = process.env.SOURCE_DATE_EPOCH ? `@${process.env.SOURCE_DATE_EPOCH}` : '@0';
  run('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=${mtime}`, '--use-compress-program=gzip -6 -n', '-cf', tarball, '-C', out, name], out);
  const digest = await sha256(tarball);
  writeFileSync(`${tarball}.sha256`, `${digest}  ${basename(tarball)}\n`);
  process.stdout.write(`${tarball}: ${(statSync(tarball).size / 1048576).toFixed(1)} MiB, sha256 ${digest}\n`);
}

main().catch((err) => {
  process.stderr.write(`bundle: ${err.message}\n`);
  process.exit(1);
});
