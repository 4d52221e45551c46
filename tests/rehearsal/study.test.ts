/**
 * study.json's judgement, on numbers: each test as its result states it (bound_by and its source
 * from the result, the gate from the limit the model names, entitled scaled by the rehearsal's
 * rate), its cell of the published report, and the goal: a gated test short of its band, bound
 * by another limit than the model's, a study with no measured limit, a result or a report not at
 * the study's scale, each is a problem that names itself.
 */
import { describe, expect, it } from 'vitest';

import type { FioJson } from '../../src/fio-output/fio-result.js';
import type { Report } from '../../src/publish/index.js';
import { attachReportCells, verdict, volumeTests, type Study, type StudyVolume } from '../harness/fleet/study.js';
import { requires } from '../helpers/requires.js';

requires();

const SCALE = { rate: 0.25, time: 0.1 };

/** One 16 KiB random read job at `iops` on a volume entitled to 3,000, bound as given. */
function doc(iops: number, bound: { bound_by: string; bound_by_source: string }): FioJson {
  const entitled = { iops: 3000, mibps: 46.88, bound_by: 'volume-iops' };
  return {
    jobs: [{ jobname: 'RND16K-Q1T16-read', 'job options': { rw: 'randread' }, read: { io_bytes: iops * 16384, iops, bw_bytes: iops * 16384 }, write: { io_bytes: 0 } }],
    volbench: {
      jobs: [{ entitlement: { entitled, entitled_merged: entitled, counted_io_kib: 256, counted_per_io: 1, bs: 16384, measured_iops: iops, measured_bw_bytes: iops * 16384, measured_vs_entitled: iops / 750, ...bound } }],
      cloud: { emulation: SCALE },
    },
  } as unknown as FioJson;
}

/** A study of `volumes` whose report is `report` (null: none was published). */
function study(volumes: StudyVolume[], report: Study['report'] | null = { files: [], title: '', context_line: '', banner: 'b', rehearsal: SCALE, verdicts: [] }): Study {
  return { wall_s: 1, mode: 'interactive', scale: SCALE, runtime: '10s', instance: 'm6i.large', command: '', volumes, leftovers: { stacks: 0 }, notes: [], ...(report ? { report } : {}) };
}

function volume(d: FioJson): StudyVolume {
  const tests = volumeTests(d, SCALE, 256 * 1024);
  for (const t of tests) t.report = { value: t.measured, entitled: t.entitled, measured_vs_entitled: t.ratio, bound_by: t.bound_by, bound_by_source: t.bound_by_source };
  return { label: 'gp3', type: 'gp3', suite: 'aws-ssd', tests, emulation: d.volbench?.cloud?.emulation ?? null };
}

describe('a rehearsed test, as its result states it', () => {
  it('takes bound_by and its source from the result, gates on the model\'s limit, scales entitled by the rate', () => {
    const [t] = volumeTests(doc(720, { bound_by: 'volume-iops', bound_by_source: 'ebs-stats' }), SCALE, 256 * 1024);
    expect(t).toMatchObject({ test: 'RND16K-Q1T16-read', dir: 'read', unit: 'IOPS', measured: 720, entitled: 750, ratio: 0.96, bound_by: 'volume-iops', bound_by_source: 'ebs-stats', limit: 'volume-iops', gated: true });
    // Short of its limit, a test stays gated: the gate is the model's limit, not what the test met.
    const [short] = volumeTests(doc(500, { bound_by: 'below-entitlement', bound_by_source: 'model' }), SCALE, 256 * 1024);
    expect(short).toMatchObject({ bound_by: 'below-entitlement', limit: 'volume-iops', gated: true, ratio: 0.667 });
  });

  it('meets the goal when within the band, bound by the model\'s limit, measured, and the report says the same', () => {
    expect(verdict(study([volume(doc(720, { bound_by: 'volume-iops', bound_by_source: 'ebs-stats' }))]))).toEqual([]);
  });

  it('names each miss: the band, another limit, nothing measured, a result or a report at another scale', () => {
    expect(verdict(study([volume(doc(500, { bound_by: 'below-entitlement', bound_by_source: 'model' }))]))).toEqual([
      'gp3 RND16K-Q1T16-read: measured/entitled 0.667 outside 0.85–1.1',
      "no test's binding limit was measured from its volume's EBS statistics page",
      'gp3 RND16K-Q1T16-read: report.json reads 0.667 of entitled, outside 0.85–1.1',
    ]);
    expect(verdict(study([volume(doc(720, { bound_by: 'instance-iops', bound_by_source: 'ebs-stats' }))]))).toEqual([
      'gp3 RND16K-Q1T16-read: bound by instance-iops (ebs-stats), where the model names volume-iops',
      'gp3 RND16K-Q1T16-read: report.json reads bound by instance-iops, where the model names volume-iops',
    ]);
    const unscaled = volume(doc(720, { bound_by: 'volume-iops', bound_by_source: 'ebs-stats' }));
    unscaled.emulation = null;
    expect(verdict(study([unscaled], { files: [], title: '', context_line: '', banner: null, rehearsal: null, verdicts: [] }))).toEqual([
      'gp3: its result says volbench.cloud.emulation null, not the study\'s scale',
      'report.json: context.rehearsal null, not the study\'s scale {"rate":0.25,"time":0.1}',
    ]);
    expect(verdict(study([volume(doc(720, { bound_by: 'volume-iops', bound_by_source: 'ebs-stats' }))], null))).toEqual(['no report was published']);
  });

  it('finds each test\'s cell on its result\'s row, by its direction and unit', () => {
    const v = volume(doc(720, { bound_by: 'volume-iops', bound_by_source: 'ebs-stats' }));
    delete v.tests[0].report;
    const cell = { value: 720.04, entitled: 750, measured_vs_entitled: 0.96005, bound_by: 'volume-iops', bound_by_source: 'ebs-stats', entitled_merged: 750, flag: null, state: 'ok' };
    const report = { groups: [{ rows: [
      { source: '/r/other.json', cells: { 'RND16K-Q1T16-read:read:iops': { ...cell, value: 1 } } },
      { source: '/r/gp3.json', cells: { 'RND16K-Q1T16-read:read:iops': cell } },
    ] }] } as unknown as Report;
    attachReportCells([v], report, (label) => `/r/${label}.json`);
    expect(v.tests[0].report).toEqual({ value: 720, entitled: 750, measured_vs_entitled: 0.96, bound_by: 'volume-iops', bound_by_source: 'ebs-stats' });
  });
});
