/**
 * A file on the machine's real disk (os.tmpdir()): direct randread counts exactly, and
 * disk_util reports the device that holds the file, as identifyTarget names it.
 */
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { identifyTarget } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { KiB, MiB, ScratchDir, dir, runJob, type EngineName } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs', 'io_uring', 'libaio');

const why = (reason: string | null | undefined): string => (reason == null ? '' : ` (skipped: ${reason})`);
const tmpIdentity = await identifyTarget(tmpdir());
const diskReason = tmpIdentity.device === null
  ? `${tmpdir()} is on ${tmpIdentity.filesystem ?? 'a filesystem'} with no block device behind it`
  : null;

describe.skipIf(diskReason !== null)(`a file on the disk behind ${tmpdir()}${why(diskReason)}`, () => {
  let scratch: ScratchDir;
  beforeAll(() => {
    scratch = new ScratchDir('disk', tmpdir());
  });
  afterAll(() => scratch?.remove());

  for (const engine of ['psync', 'io_uring'] as EngineName[]) {
    const reason = needs.engine(engine);
    it.skipIf(reason !== undefined)(`direct randread with ${engine} counts size/bs and reports the disk in disk_util${why(reason)}`, async () => {
      const path = scratch.path(`disk-${engine}.dat`);
      const { result, job } = await runJob({
        name: `disk-${engine}`, filename: path, size: '8m', bs: '4k', rw: 'randread', direct: 1, ioengine: engine, iodepth: 8,
      });
      expect(job.error).toBe(0);
      const read = dir(job, 'read');
      expect(read.total_ios).toBe((8 * MiB) / (4 * KiB));
      expect(read.io_bytes).toBe(8 * MiB);
      expect(result.volbench.jobs[0].engine).toBe(engine);
      const identity = await identifyTarget(path);
      expect(identity.device).toBe(tmpIdentity.device);
      const util = result.disk_util?.find((d) => d.name === identity.device);
      expect(util, `disk_util ${JSON.stringify(result.disk_util)} lacks ${identity.device}`).toBeDefined();
      // Direct reads reach the device (merges may join some of them).
      expect(util?.read_ios).toBeGreaterThan(0);
      expect(result.volbench.targets[0]).toMatchObject({ device: identity.device, filesystem: identity.filesystem });
    });
  }
});
