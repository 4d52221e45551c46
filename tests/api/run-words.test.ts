/**
 * A run's words in its record, read through the library's rules.
 *
 * Broke: the web view had its own copy of rw→directions, option aliases, volume words and the
 * analyses' defaults, and it disagreed with the engine: `randrw` with `rwmixread=100` got an
 * empty write line. Expected: the service says the title and the directions, as the library
 * reads the spec.
 */
import { describe, expect, it } from 'vitest';

import { runWords } from '../../src/server/runs/run-words.js';
import type { RunRow } from '../../src/server/store/runs.js';
import { requires } from '../helpers/requires.js';

requires();

function row(over: Partial<RunRow>): RunRow {
  return { id: 'c0ffee00-0000-4000-8000-000000000000', spec: { jobs: [] }, suite: null, analysis: null, volume: null, roots: ['/data'], ...over } as RunRow;
}

describe('a run in words', () => {
  it('randrw with rwmixread=100 reads only: no write direction', () => {
    const words = runWords(row({ spec: { jobs: [{ name: 'm', rw: 'randrw', rwmixread: 100, bs: '4k', filename: '/data/a' }] } }));
    expect(words.directions).toEqual(['read']);
    expect(words.job_directions).toEqual({ m: ['read'] });
    expect(words.title).toBe('m: randrw bs=4k on /data/a');
  });

  it('reads options by any of their names, from the job or [global]', () => {
    const words = runWords(row({
      spec: { global: { blocksize: '64k', directory: '/data/d' }, jobs: [{ name: 'w', readwrite: 'randwrite', iodepth: 32 }, { name: 'r', rw: 'read', numjobs: 4 }, { name: 't', rw: 'trim' }] },
    }));
    expect(words.what_ran).toBe('3 jobs: w (randwrite bs=64k iodepth=32), r (read bs=64k numjobs=4) and 1 more');
    expect(words.target_text).toBe('/data/d');
    expect(words.directions).toEqual(['read', 'write', 'trim']);
    expect(words.job_directions).toEqual({ w: ['write'], r: ['read'], t: ['trim'] });
  });

  it("names a suite, an analysis with its defaults, the volume, and the roots when no path is named", () => {
    const suite = runWords(row({ suite: { name: 'kdiskmark', loops: 5, directory: '/data/k' }, spec: { jobs: [{ name: 'a', rw: 'read' }, { name: 'b', rw: 'randwrite' }] } }));
    expect(suite.title).toBe('suite kdiskmark (2 tests) on /data/k');
    expect(suite.job_directions).toEqual({ a: ['read'], b: ['write'] });
    const sweep = runWords(row({ analysis: { analysis: 'sweep' }, spec: { jobs: [{ name: 's', rw: 'randread', bs: '4k' }] } }));
    expect(sweep.what_ran).toBe('sweep over iodepth of randread bs=4k');
    const uniformity = runWords(row({ analysis: { analysis: 'uniformity', write: true }, spec: { jobs: [{ name: 'u', rw: 'read' }] } }));
    expect([uniformity.what_ran, uniformity.directions]).toEqual(['uniformity: 100 chunks, write', ['write']]);
    const volume = runWords(row({ volume: { type: 'gp3', size_gib: 500, iops: 6000, instance: 'm6i.large' }, spec: { jobs: [{ name: 'r', rw: 'randread' }] } }));
    expect(volume.title).toBe('r: randread on /data (gp3 500 GiB, 6000 IOPS on m6i.large)');
    expect(volume.volume_text).toBe('gp3 500 GiB, 6000 IOPS on m6i.large');
  });
});
