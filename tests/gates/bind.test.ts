/**
 * Assertions checked against the spec before any I/O: unknown jobs, directions the job does not
 * do, metrics its output will not have, and the direction filled in when there is one.
 */
import { describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import { bindAssertions, parseAssertion } from '../../src/gates/index.js';
import { parseSpec } from '../../src/jobspec/index.js';
import type { JobSpec } from '../../src/jobspec/types.js';
import { requires } from '../helpers/requires.js';

requires();

const spec = parseSpec({
  global: { filename: '/nonexistent/x', size: '1m' },
  jobs: [
    { name: 'reader', rw: 'randread' },
    { name: 'mixer', rw: 'randrw', stonewall: true },
    { name: 'writer.read', rw: 'write', fsync: 1 },
    { name: 'clones', rw: 'read', numjobs: 2 },
    { name: 'lat', rw: 'read', lat_percentiles: 1 },
    { name: 'allreads', rw: 'randrw', rwmixread: 100 },
  ],
} satisfies JobSpec);

function bind(expr: string) {
  return bindAssertions(spec, [parseAssertion(expr)])[0];
}

function refusal(expr: string): VolbenchError {
  try {
    bind(expr);
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    expect((err as VolbenchError).code).toBe('EINVALID_ARGS');
    expect((err as VolbenchError).message).toContain(`assertion '${expr}'`);
    return err as VolbenchError;
  }
  throw new Error(`'${expr}' was accepted`);
}

describe('bindAssertions', () => {
  it('fills in the only direction a job does', () => {
    expect(bind('reader.iops > 1').dir).toBe('read');
    expect(bind('mixer.write.clat_ns.p99 < 1ms').dir).toBe('write');
    expect(bind('reader.error == 0').dir).toBeUndefined();
  });

  it('takes a mixed workload at rwmixread=100 as reads only, as the planner does', () => {
    expect(bind('allreads.iops > 1').dir).toBe('read');
    expect(refusal('allreads.write.iops > 1').message).toContain('has no write direction');
  });

  it('refuses a job the spec does not have, listing the jobs', () => {
    const err = refusal('nope.iops > 1');
    expect(err.message).toContain("there is no job named 'nope' (jobs: reader, mixer, writer.read, clones, lat, allreads)");
    expect(err.accepted).toBe('one of: reader, mixer, writer.read, clones, lat, allreads');
  });

  it('asks for the direction of a job that reads and writes', () => {
    expect(refusal('mixer.iops > 1').message).toContain('name the direction, mixer.read.iops or mixer.write.iops');
  });

  it('refuses a direction the job does not do', () => {
    expect(refusal('reader.write.iops > 1').message).toContain('job reader (rw=randread) has no write direction');
  });

  it('prefers a job whose name ends in a direction over reading it as one', () => {
    expect(bind('writer.read.iops > 1')).toMatchObject({ job: 'writer.read', dir: 'write' });
    expect(bind('writer.read.sync.lat_ns.mean < 1ms')).toMatchObject({ job: 'writer.read', dir: 'sync' });
  });

  it('refuses metrics the output will not have', () => {
    expect(refusal('reader.lat_ns.p99 < 1ms').message).toContain('lat_ns percentiles need lat_percentiles=1');
    expect(bind('lat.lat_ns.p99 < 1ms').metric).toBe('lat_ns.p99');
    expect(refusal('writer.read.sync.iops > 1').message).toContain('the sync direction has no iops');
  });

  it('refuses a job fio reports as several entries', () => {
    expect(refusal('clones.iops > 1').message).toContain('numjobs=2 without group_reporting');
  });
});
