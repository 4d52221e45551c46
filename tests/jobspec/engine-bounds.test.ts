/**
 * Values the engine cannot take are refused where they are parsed. iodepth above 65535 and a
 * block size of 4 GiB or more used to pass validation and fail inside the engine as an internal
 * error (the CLI printed a stack trace). fio bounds iodepth at 65535; an I/O's length is a
 * 32-bit count.
 */
import { describe, expect, it } from 'vitest';

import { parseSpec } from '../../src/jobspec/index.js';
import { VolbenchError } from '../../src/errors.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'dist');

function refusal(job: Record<string, string | number>): VolbenchError {
  try {
    parseSpec({ jobs: [{ name: 'j', ...job }] });
  } catch (err) {
    return err as VolbenchError;
  }
  throw new Error('expected a refusal');
}

describe('bounds the engine needs', () => {
  it('iodepth is at most 65535', () => {
    expect(parseSpec({ jobs: [{ name: 'j', iodepth: 65535 }] }).jobs[0].options.iodepth).toBe(65535);
    expect(refusal({ iodepth: 65536 })).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].iodepth' });
  });

  it('bs, blockalign and bssplit block sizes are below 4 GiB', () => {
    expect(refusal({ bs: '4g' })).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].bs' });
    expect(refusal({ bs: '4k,4g' })).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].bs' });
    expect(refusal({ blockalign: '8g' })).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].blockalign' });
    expect(refusal({ bssplit: '4k/50:4g/50' })).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].bssplit' });
    expect(parseSpec({ jobs: [{ name: 'j', bs: '1g' }] }).jobs[0].options.bs[0]).toBe(2 ** 30);
  });

  it('the CLI refuses them with exit 2 and one line, no stack trace', async () => {
    const out = await volbench(['run', '--name=x', '--size=1m', '--ioengine=null', '--iodepth=70000']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('[jobs[0].iodepth]');
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });
});
