/**
 * The gate reports on crafted outcomes: JUnit XML (parsed back: testcases, failures, measured
 * values, escaping) and GitHub Actions workflow commands (format and escaping).
 */
import { describe, expect, it } from 'vitest';

import { evaluateAssertions, toGithubAnnotations, toJUnit, type AssertionOutcome } from '../../src/gates/index.js';
import { fioSample } from '../helpers/fio-samples.js';
import { requires } from '../helpers/requires.js';
import { findAll, parseXml } from '../helpers/xml.js';

requires();

const result = fioSample('02-randread-qd32-iouring.jsonplus.json');
const read = result.jobs[0].read!;
const outcomes = evaluateAssertions(result, [
  'randread-qd32.iops >= 1000',
  'randread-qd32.iops < 10',
  'randread-qd32.clat_ns.p99 <= 1ns',
]);

function property(testcase: ReturnType<typeof parseXml>, name: string): string | undefined {
  return findAll(testcase, 'property').find((p) => p.attrs.name === name)?.attrs.value;
}

describe('toJUnit', () => {
  it('writes one testcase per assertion and a failure for each that does not hold', () => {
    const doc = parseXml(toJUnit(outcomes, { name: 'volbench.kdiskmark', result }));
    expect(doc.name).toBe('testsuites');
    expect(doc.attrs).toMatchObject({ name: 'volbench.kdiskmark', tests: '3', failures: '2', errors: '0' });
    const [suite] = findAll(doc, 'testsuite');
    expect(suite.attrs).toMatchObject({ tests: '3', failures: '2', skipped: '0' });
    const cases = findAll(suite, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(outcomes.map((o) => o.expr));
    expect(cases.every((c) => c.attrs.classname === 'volbench.kdiskmark.randread-qd32')).toBe(true);
    expect(cases.map((c) => findAll(c, 'failure').length)).toEqual([0, 1, 1]);
    expect(cases[0].attrs.time).toBe(String(result.jobs[0].elapsed));
  });

  it('carries the measured value in each testcase and in its failure', () => {
    const cases = findAll(parseXml(toJUnit(outcomes, { result })), 'testcase');
    expect(cases.map((c) => Number(property(c, 'measured')))).toEqual([read.iops, read.iops, read.clat_ns.percentile!['99.000000']]);
    expect(property(cases[1], 'wanted')).toBe('< 10');
    expect(property(cases[2], 'unit')).toBe('ns');
    const failure = findAll(cases[1], 'failure')[0];
    expect(failure.attrs.message).toBe(outcomes[1].message);
    expect(failure.text).toBe(`randread-qd32.iops < 10: ${outcomes[1].message}`);
    expect(findAll(cases[0], 'system-out')[0].text).toContain('measured');
  });

  it('escapes markup in names and messages', () => {
    const odd: AssertionOutcome = {
      expr: 'a<b>&"c\'.iops < 5', job: 'a<b>&"c\'', dir: 'read', metric: 'iops', op: '<', wanted: 5, measured: 7,
      passed: false, unit: 'IOPS', message: 'measured 7 IOPS, wanted < 5 IOPS',
    };
    const [testcase] = findAll(parseXml(toJUnit([odd])), 'testcase');
    expect(testcase.attrs.name).toBe(odd.expr);
    expect(testcase.attrs.classname).toBe(`volbench.${odd.job}`);
    expect(findAll(testcase, 'failure')[0].text).toBe(`${odd.expr}: ${odd.message}`);
  });

  it('writes an empty but valid report when there is nothing to judge', () => {
    const doc = parseXml(toJUnit([]));
    expect(doc.attrs).toMatchObject({ tests: '0', failures: '0' });
    expect(findAll(doc, 'testcase')).toHaveLength(0);
  });
});

describe('toGithubAnnotations', () => {
  it('prints ::error for failures and ::notice for passes, one line each', () => {
    const lines = toGithubAnnotations(outcomes).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(lines[0]).toBe(`::notice title=volbench%3A randread-qd32.iops >= 1000::holds: ${outcomes[0].message}`);
    expect(lines[1]).toBe(`::error title=volbench%3A randread-qd32.iops < 10::fails: ${outcomes[1].message}`);
    const p99 = read.clat_ns.percentile!['99.000000'];
    expect(lines[2]).toBe(`::error title=volbench%3A randread-qd32.clat_ns.p99 <= 1ns::fails: measured ${p99}ns, wanted <= 1ns`);
  });

  it('escapes what the workflow command syntax reserves', () => {
    const odd: AssertionOutcome = {
      expr: 'a,b:c.iops < 5', job: 'a,b:c', dir: 'read', metric: 'iops', op: '<', wanted: 5, measured: 7,
      passed: false, unit: 'IOPS', message: '100% of\nit, now: 7',
    };
    expect(toGithubAnnotations([odd])).toBe('::error title=volbench%3A a%2Cb%3Ac.iops < 5::fails: 100%25 of%0Ait, now: 7\n');
  });
});
