/**
 * The supported-options table against fio 3.33: every name and alias is one fio has, flags are
 * fio's FIO_OPT_STR_SET options, priorities are fio's, and the JSON schema documents itself.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  FIO_ENGINE_OPTION_NAMES, FIO_JOB_OPTION_NAMES, findOption, jobSpecSchema, SUPPORTED_OPTIONS,
} from '../../src/jobspec/index.js';
import { requires } from '../helpers/requires.js';

requires();

const fioNames = new Set([...FIO_JOB_OPTION_NAMES, ...FIO_ENGINE_OPTION_NAMES]);

describe('supported options table', () => {
  it('every name and alias but volbench’s own is a fio 3.33 option name', () => {
    const notFio = SUPPORTED_OPTIONS.flatMap((d) => [d.name, ...d.aliases]).filter((n) => !fioNames.has(n));
    expect(notFio).toEqual(['allow_block_write']);
  });

  it('names are unique across names and aliases', () => {
    const all = SUPPORTED_OPTIONS.flatMap((d) => [d.name, ...d.aliases]);
    expect(new Set(all).size).toBe(all.length);
  });

  it("uses fio's canonical names, with fio's aliases", () => {
    expect(findOption('blockalign')?.name).toBe('ba');
    expect(findOption('iodepth_batch_submit')?.name).toBe('iodepth_batch');
    expect(findOption('timeout')?.name).toBe('runtime');
    expect(findOption('readwrite')?.name).toBe('rw');
    expect(findOption('io_limit')?.name).toBe('io_size');
    expect(findOption('wait_for_previous')?.name).toBe('stonewall');
    expect(findOption('iodepth_batch_complete')?.name).toBe('iodepth_batch_complete_min');
  });

  it("flags are fio's FIO_OPT_STR_SET options (plus allow_block_write)", () => {
    const flags = SUPPORTED_OPTIONS.filter((d) => d.flag).map((d) => d.name).sort();
    expect(flags).toEqual([
      'allow_block_write', 'fixedbufs', 'group_reporting', 'hipri', 'new_group', 'norandommap', 'refill_buffers',
      'registerfiles', 'sqthread_poll', 'stonewall', 'time_based', 'verify_only', 'zero_buffers',
    ]);
  });

  it("priorities are fio's: kb_base first, filename last", () => {
    const prios = SUPPORTED_OPTIONS.filter((d) => d.prio !== 0).map((d) => [d.name, d.prio]);
    expect(prios).toEqual([['filename', -1], ['kb_base', 1]]);
  });

  it('the fio name list is complete enough to know common options volbench lacks', () => {
    for (const name of ['gtod_reduce', 'bsrange', 'nrfiles', 'steadystate', 'ss', 'cpus_allowed', 'userspace_reap', 'nonvectored']) {
      expect(fioNames.has(name)).toBe(true);
    }
  });
});

describe('JSON schema', () => {
  it('accepts a spec and converts to JSON Schema with descriptions', () => {
    expect(jobSpecSchema.safeParse({ global: { bs: '4k' }, jobs: [{ name: 'a', iodepth: 4, time_based: true }] }).success).toBe(true);
    const schema = z.toJSONSchema(jobSpecSchema) as { description?: string; properties: Record<string, { description?: string }> };
    expect(schema.description).toMatch(/fio/);
    expect(schema.properties.jobs.description).toMatch(/job/);
  });
});
