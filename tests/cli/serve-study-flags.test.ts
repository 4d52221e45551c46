/**
 * `volbench serve`'s study flags: studies spend money, so every way of asking for them wrongly is
 * refused before the service starts, naming the flag and what it accepts (EINVALID_ARGS, exit 2),
 * and a command line without --studies serves none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serveConfig } from '../../src/cli/serve-command.js';
import { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';

requires();

// Made as the file loads: the table of refusals below names them.
const dir = mkdtempSync(join(tmpdir(), `volbench-serve-study-flags-${process.pid}-`));
const tokenFile = join(dir, 'study-token');
const bundle = join(dir, 'volbench-0.1.0-linux-x64.tar.gz');
const sink = { write: () => true } as unknown as NodeJS.WriteStream;
const RUN_TOKEN = 'the-run-token';

beforeAll(() => {
  writeFileSync(tokenFile, 'the-study-token\n', { mode: 0o600 });
  writeFileSync(bundle, 'a bundle');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (argv: string[], env: NodeJS.ProcessEnv = { VOLBENCH_TOKEN: RUN_TOKEN }) =>
  serveConfig(['--data-dir', join(dir, 'data'), '--target-root', dir, ...argv], env, { stdout: sink, stderr: sink });
const studies = (...argv: string[]) => ['--studies', '--study-token-file', tokenFile, '--study-bucket', 'b', '--study-regions', 'us-east-1', '--study-package', bundle, ...argv];

function refusal(argv: string[], env?: NodeJS.ProcessEnv): VolbenchError {
  try {
    config(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error(`serve ${argv.join(' ')} was not refused`);
}

describe('serve --studies', () => {
  it('serves no study without --studies, and takes the limits it is given', () => {
    expect(config([]).studies).toBeUndefined();
    const on = config(studies('--study-bucket', 'other', '--study-max-cost', '7.5', '--study-max-concurrent', '3', '--study-regions', 'eu-west-1,us-east-1',
      '--study-instance-types', 'm6i.large,c7g.large', '--study-volume-types', 'gp3,io2'));
    expect(on.token).toBe(RUN_TOKEN);
    expect(on.studies).toEqual({
      token: 'the-study-token', bucket: 'b', buckets: ['other'], maxCostUsd: 7.5, maxConcurrent: 3, regions: ['eu-west-1', 'us-east-1'],
      instanceTypes: ['m6i.large', 'c7g.large'], volumeTypes: ['gp3', 'io2'], packages: { files: { x64: bundle } }, driver: 'loop', index: 'store',
    });
    // The defaults: a cap of $20, two open at once, the environment's region.
    const plain = config(['--studies', '--study-bucket', 'b', '--study-package', bundle], { VOLBENCH_TOKEN: RUN_TOKEN, VOLBENCH_STUDY_TOKEN: 's', AWS_REGION: 'ap-south-1' });
    expect(plain.studies).toMatchObject({ token: 's', maxCostUsd: 20, maxConcurrent: 2, regions: ['ap-south-1'] });
  });

  it.each([
    [['--study-max-cost', '5'], '--study-max-cost', '--studies', /is for studies/],
    [['--studies', '--study-bucket', 'b', '--study-package', bundle], '--study-token-file', /chmod 600/, /is needed with --studies/],
    [['--studies', '--study-token-file', tokenFile, '--study-package', bundle], '--study-bucket', 'an S3 bucket name', /is needed with --studies/],
    [studies('--study-max-cost', 'ten'), '--study-max-cost', 'a number of USD above 0, e.g. 20', /takes dollars, not 'ten'/],
    [studies('--study-max-cost', '0'), '--study-max-cost', 'a number of USD above 0, e.g. 20', /takes dollars/],
    [studies('--study-max-concurrent', '0'), '--study-max-concurrent', 'an integer >= 1', /at least 1, not '0'/],
    [studies('--study-regions', 'us-east-1,mars-north-1'), '--study-regions', /us-east-1/, /mars-north-1/],
    [studies('--study-volume-types', 'gp3,gp9'), '--study-volume-types', /gp3/, /names gp9, which is no AWS volume type/],
    [studies('--study-package', join(dir, 'volbench.tar.gz')), '--study-package', /linux-x64\.tar\.gz/, /does not say its architecture/],
    [studies('--study-package', join(dir, 'volbench-0.1.0-linux-arm64.tar.gz')), '--study-package', 'a bundle npm run bundle wrote', /does not exist/],
  ] as const)('refuses %j naming %s', (argv, field, accepted, message) => {
    const err = refusal([...argv]);
    expect(err.code).toBe('EINVALID_ARGS');
    expect(err.field).toBe(field);
    if (typeof accepted === 'string') expect(err.accepted).toBe(accepted);
    else expect(err.accepted).toMatch(accepted);
    expect(err.message).toMatch(message);
  });

  it('refuses a study token a group may read, and one that is the run token', () => {
    const loose = join(dir, 'loose-token');
    writeFileSync(loose, 'x', { mode: 0o644 });
    expect(refusal(['--studies', '--study-token-file', loose, '--study-bucket', 'b', '--study-package', bundle])).toMatchObject({ field: '--study-token-file' });
    const same = join(dir, 'same-token');
    writeFileSync(same, RUN_TOKEN, { mode: 0o600 });
    const err = refusal(['--studies', '--study-token-file', same, '--study-bucket', 'b', '--study-regions', 'us-east-1', '--study-package', bundle]);
    expect(err).toMatchObject({ field: '--study-token-file', accepted: 'a token of its own' });
    expect(err.message).toContain('holds the run token');
  });
});
