/**
 * The suite manifest (suites/index.json): every shipped suite once, its tests read from its job
 * file, the media it is for and the questions it answers, each on a test the job file has.
 * Reports once knew the suites from a copy of their test names (publish/suite-columns.ts) that
 * lacked kdiskmark-nvme and initialize, so those results were reported as loose job sets; the
 * report now knows every suite the manifest lists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { listSuites, loadSuite, suiteManifest } from '../../src/suites/index.js';
import { fleetDefaultSuite, parseManifestEntries, withTests } from '../../src/suites/manifest.js';
import { namedSuites, suiteOf } from '../../src/publish/suite-columns.js';
import { ROOT } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

requires();

describe('the suite manifest', () => {
  const manifest = suiteManifest();

  it('lists every job file in suites/ once, in the order suite --list prints them', () => {
    const files = readdirSync(join(ROOT, 'suites')).filter((f) => f.endsWith('.fio')).sort();
    expect(manifest.map((s) => s.file).sort()).toEqual(files);
    expect(listSuites().map((s) => s.name)).toEqual(manifest.map((s) => s.name));
  });

  it("reads each suite's tests from its job file, in order", () => {
    for (const s of manifest) {
      expect(s.tests, s.name).toEqual(loadSuite(s.name).spec.jobs.map((j) => j.name));
      expect(s.tests.length, s.name).toBeGreaterThan(0);
    }
  });

  it('says which media each suite is for, and what it answers: a metric of one of its tests', () => {
    const media = Object.fromEntries(manifest.map((s) => [s.name, s.media]));
    expect(media).toMatchObject({ 'aws-ssd': 'ssd', 'aws-hdd': 'hdd', 'kdiskmark-nvme': 'ssd' });
    for (const s of manifest) {
      expect(s.questions.length, s.name).toBeGreaterThan(0);
      for (const q of s.questions) expect(s.tests, `${s.name}: ${q.question}`).toContain(q.test);
    }
  });

  it('refuses a question on a test the job file does not have, naming where', () => {
    const text = readFileSync(join(ROOT, 'suites', 'index.json'), 'utf8');
    const entries = parseManifestEntries(text, 'index.json');
    const broken = entries.map((e) => (e.name === 'aws-ssd' ? { ...e, questions: [{ ...e.questions[0], test: 'RND16K-Q1T16-reed' }] } : e));
    const read = (f: string) => readFileSync(join(ROOT, 'suites', f), 'utf8');
    const err = errorOf(() => withTests(broken, read, 'index.json'));
    expect(err.code).toBe('EINVALID_SPEC');
    expect(err.field).toBe(`suites.${entries.findIndex((e) => e.name === 'aws-ssd')}.questions.0.test`);
    expect(err.message).toMatch(/aws-ssd.fio has no test 'RND16K-Q1T16-reed'/);
  });

  it('refuses a suite named twice, and a question with another metric than a report has', () => {
    const one = { name: 'a', file: 'a.fio', title: 't', source: 's', loops: 1, target: 'any', media: 'any', questions: [] };
    expect(errorOf(() => parseManifestEntries(JSON.stringify({ suites: [one, one] }), 'x.json')).message).toMatch(/'a' is named twice/);
    const q = { question: 'q', test: 'T', metric: 'speed', better: 'higher' };
    expect(errorOf(() => parseManifestEntries(JSON.stringify({ suites: [{ ...one, questions: [q] }] }), 'x.json')).field).toBe('suites.0.questions.0.metric');
  });

  it("names one fleet default per media (--suite auto): aws-ssd for SSD, aws-hdd for HDD; a second, or another media's, is refused", () => {
    expect(fleetDefaultSuite('ssd')).toBe('aws-ssd');
    expect(fleetDefaultSuite('hdd')).toBe('aws-hdd');
    const ssd = { name: 'a', file: 'a.fio', title: 't', source: 's', loops: 1, target: 'any', media: 'ssd', fleet_default: 'ssd', questions: [] };
    const twice = errorOf(() => parseManifestEntries(JSON.stringify({ suites: [ssd, { ...ssd, name: 'b' }] }), 'x.json'));
    expect(twice.field).toBe('suites.1.fleet_default');
    expect(twice.message).toMatch(/already a's/);
    expect(errorOf(() => parseManifestEntries(JSON.stringify({ suites: [{ ...ssd, media: 'any' }] }), 'x.json')).field).toBe('suites.0.fleet_default');
  });

  it('is what reports know: every shipped suite, found from its job names alone', () => {
    expect(Object.keys(namedSuites()).sort()).toEqual(manifest.map((s) => s.name).sort());
    for (const s of manifest) {
      // Two suites may share a set of names only if they are the same suite.
      expect(suiteOf(undefined, [...s.tests].reverse()), s.name).toBe(s.name);
    }
  });
});
