#!/usr/bin/env node
// Builds the zip that infra/cloudformation/lambda.yaml deploys, for one architecture:
//
//   npm run package:lambda -- --arch x64|arm64 [--out FILE.zip] [--tarball FILE]   (volbench-lambda-ARCH.zip by default)
//
// --tarball: stage that `npm pack` of this checkout instead of packing it again.
//
// The zip holds the package installed for production (scripts/stage-package.mjs): package.json,
// dist/ (the handler is dist/server/lambda.handler), openapi.yaml, suites/, catalog/, web/, the
// production dependencies and the prebuilt addon for ARCH, checked against Amazon Linux 2023's
// symbol versions (Lambda's Node.js 22 and 24 runtimes run on it). The addon is N-API and the
// store is Node's own node:sqlite, so one zip serves every Node runtime of its architecture
// (the template's Architecture: x86_64 for x64, arm64 for arm64). Lambda takes at most 250 MB
// unzipped: the build fails above that.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { archAndOut, root, run, stagePackage, treeBytes } from './stage-package.mjs';

/** Lambda's limit on a function's unzipped size, in bytes. */
export const LAMBDA_UNZIPPED_LIMIT = 250 * 1000 * 1000;
const USAGE = 'npm run package:lambda -- --arch x64|arm64 [--out FILE.zip] [--tarball FILE]';

function main() {
  const { arch, out = join(root, `volbench-lambda-${arch}.zip`), tarball } = archAndOut(process.argv.slice(2), USAGE);
  const stage = mkdtempSync(join(tmpdir(), 'volbench-lambda-'));
  try {
    const { modules } = stagePackage(stage, arch, tarball);
    const unzipped = treeBytes(stage);
    if (unzipped > LAMBDA_UNZIPPED_LIMIT) {
      throw new Error(`the package is ${(unzipped / 1e6).toFixed(1)} MB unzipped, over Lambda's 250 MB`);
    }
    rmSync(out, { force: true });
    run('zip', ['-q', '-r', '-y', '-X', out, '.'], stage);
    process.stdout.write(`${out}: ${(statSync(out).size / 1048576).toFixed(1)} MiB zipped, ${(unzipped / 1e6).toFixed(1)} MB unzipped, ` +
      `${modules.length} native module(s) for ${arch} checked against Amazon Linux 2023\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`package-lambda: ${/** @type {Error} */ (err).message}\n`);
    process.exit(1);
  }
}
