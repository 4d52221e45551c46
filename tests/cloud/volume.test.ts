/**
 * A volume is made once (parseVolume, parseVolumes, volumeOf, volumeFromJson) and carries its
 * catalog entry: one grammar for --volume and --volumes, one set of error codes, the figures it
 * was given (what a state file keeps) apart from the figures it has (what a result writes).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { isVolume, parseVolume, parseVolumes, Volume, volumeFromJson, volumeOf } from '../../src/cloud/index.js';
import { volbench } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs');

describe('a Volume', () => {
  it('carries its catalog entry, unseen when written out, and cannot be changed', () => {
    const v = parseVolume('gp3:500g:iops=6000:throughput=250');
    expect(v.catalog.provider).toBe('aws');
    expect(v.catalog.iops.provisioned).toBe(true);
    expect(Object.keys(v)).toEqual(['type', 'sizeGiB', 'iops', 'throughputMiBps']);
    expect(JSON.parse(JSON.stringify(v))).toEqual({ type: 'gp3', sizeGiB: 500, iops: 6000, throughputMiBps: 250 });
    expect(Object.isFrozen(v)).toBe(true);
    expect(() => { (v as { sizeGiB: number }).sizeGiB = 1; }).toThrow(TypeError);
  });

  it('writes the figures it has in results: the type defaults where none were given', () => {
    expect(parseVolume('gp3:100g').json()).toEqual({ type: 'gp3', size_gib: 100, iops: 3000, throughput_mibps: 125 });
    expect(parseVolume('gp2:100g').json()).toEqual({ type: 'gp2', size_gib: 100 });
  });

  it('reads back from its canonical text, its JSON and its figures to the same volume', () => {
    const v = parseVolume('io2:2t:iops=16000');
    expect(v.text).toBe('io2:2t:iops=16000');
    expect(v.label).toBe('io2-2t-16000iops');
    expect(parseVolume(v.text)).toEqual(v);
    expect(volumeFromJson(v.json())).toEqual(v);
    expect(volumeOf({ type: 'io2', sizeGiB: 2048, iops: 16000 })).toEqual(v);
    // Made once: a Volume passes as it is.
    expect(volumeOf(v)).toBe(v);
    expect(isVolume(v.toJSON())).toBe(false);
  });

  it('is made only by its factories, each checking the figures', () => {
    // The constructor is private to the type; at run time the one way in is Volume.of.
    expect(errorOf(() => Volume.of({ type: 'gp3', sizeGiB: 0 })).code).toBe('EVOLUME_LIMIT');
    const json = errorOf(() => volumeFromJson({ type: 'gp3', size_gib: 100, throughput_mibps: 9000 }, 'volume'));
    expect([json.code, json.field]).toEqual(['EVOLUME_LIMIT', 'volume.throughput_mibps']);
    expect(errorOf(() => volumeFromJson({ type: 'gp9', size_gib: 100 })).code).toBe('EVOLUME_TYPE');
  });

  it('instance store is the device as the instance has it, unless a size says less', () => {
    expect(parseVolume('instance-store').sizeGiB).toBe(0);
    expect(parseVolume('instance-store:100g').text).toBe('instance-store:100g');
  });
});

describe('lists', () => {
  it('label each volume, a repeat with -2, and take suite= only where asked', () => {
    const list = parseVolumes('gp3:500g,st1:2t:suite=aws-hdd,gp3:500g', { suite: true });
    expect(list.map((l) => l.label)).toEqual(['gp3-500g', 'st1-2t', 'gp3-500g-2']);
    expect(list[1].volume.suite).toBe('aws-hdd');
    expect(list[1].volume.text).toBe('st1:2t:suite=aws-hdd');
    const refused = errorOf(() => parseVolumes('st1:2t:suite=aws-hdd'));
    expect([refused.code, refused.field]).toEqual(['EVOLUME_SYNTAX', '--volumes[0].suite']);
    expect(errorOf(() => parseVolumes('st1:2t:suite=../x', { suite: true })).message).toMatch(/not a suite name/);
  });

  it('are canonical forms only: the old comma form is one volume of --volume', () => {
    const err = errorOf(() => parseVolumes('gp3:size=500g,iops=6000'));
    expect([err.code, err.field]).toEqual(['EVOLUME_TYPE', '--volumes[1].type']);
  });
});

describe('volbench run --volume', () => {
  const scratch = new ScratchDir('volume-flag');
  afterAll(() => scratch.remove());
  const run = (volume: string) => volbench(['run', '--name=v', '--ioengine=null', '--rw=read', '--bs=4k', '--size=1m',
    `--filename=${join(scratch.dir, 'f')}`, '--output-format=json', '--no-cloud-lookup', '--volume', volume]);

  it('takes the old form with a note on stderr saying how to write it now, and the new form without one', async () => {
    const old = await run('gp3:size=100g,iops=4000');
    expect(old.code, old.stderr).toBe(0);
    expect(old.stderr).toContain('volbench: warning: --volume gp3:size=100g,iops=4000: TYPE:size=S,key=V is the old form; write gp3:100g:iops=4000');
    const now = await run('gp3:100g:iops=4000');
    expect(now.code, now.stderr).toBe(0);
    expect(now.stderr).not.toContain('old form');
    expect(JSON.parse(now.stdout).volbench.cloud.volume).toEqual(JSON.parse(old.stdout).volbench.cloud.volume);
  });

  it('refuses a volume with its code in the message field, before any I/O', async () => {
    const out = await run('gp3:100g:iops=60000');
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/gp3: at most 500 IOPS per GiB .*\[--volume\.iops\]/);
  });
});
