/**
 * Judging assertions on crafted results: real fio 3.33 outputs from tests/fixtures (and edited
 * copies of them), so the numbers measured are known exactly.
 */
import { describe, expect, it } from 'vitest';

import { evaluateAssertions, latencyPercentile, withAssertions } from '../../src/gates/index.js';
import { fioSample } from '../helpers/fio-samples.js';
import { requires } from '../helpers/requires.js';

requires();

const randread = fioSample('02-randread-qd32-iouring.jsonplus.json');
const read = randread.jobs[0].read!;

describe('evaluateAssertions', () => {
  it('passes and fails IOPS gates on the measured value, recording measured and wanted', () => {
    const [pass, fail] = evaluateAssertions(randread, ['randread-qd32.iops >= 1000', 'randread-qd32.iops <= 1']);
    expect(pass).toMatchObject({ passed: true, dir: 'read', metric: 'iops', measured: read.iops, wanted: 1000, unit: 'IOPS' });
    expect(fail).toMatchObject({ passed: false, measured: read.iops, wanted: 1, op: '<=' });
    expect(fail.message).toBe(`measured ${read.iops.toFixed(1).replace(/\.0$/, '')} IOPS, wanted <= 1 IOPS`);
  });

  it('measures bw in bytes per second and prints it in the unit of the wanted value', () => {
    const [o] = evaluateAssertions(randread, ['randread-qd32.read.bw >= 1GiB/s']);
    expect(o.measured).toBe(read.bw_bytes);
    expect(o.passed).toBe(read.bw_bytes >= 1024 ** 3);
    expect(o.message).toMatch(/^measured 0\.\d+GiB\/s, wanted >= 1GiB\/s$/);
  });

  it('reads a percentile fio printed, and computes one it did not from the json+ bins', () => {
    const printed = read.clat_ns.percentile!['99.000000'];
    expect(evaluateAssertions(randread, ['randread-qd32.clat_ns.p99 < 1s'])[0].measured).toBe(printed);
    // p97.5 is not in fio's default list: the first bucket whose running count reaches 97.5% of N.
    const bins = Object.entries(read.clat_ns.bins!).map(([v, c]) => [Number(v), c]).sort((a, b) => a[0] - b[0]);
    let running = 0;
    const expected = bins.find(([, c]) => (running += c) >= 0.975 * read.clat_ns.N)![0];
    const [o] = evaluateAssertions(randread, ['randread-qd32.clat_ns.p97.5 <= 1ms']);
    expect(o.measured).toBe(expected);
  });

  it('computes from the bins exactly the percentiles fio printed (fio\'s rule)', () => {
    for (const [key, value] of Object.entries(read.clat_ns.percentile!)) {
      const withoutTable = { ...read.clat_ns, percentile: {} };
      expect(latencyPercentile(withoutTable, Number(key)), key).toBe(value);
    }
  });

  it('fails a percentile that is neither printed nor computable, saying why', () => {
    const plain = fioSample('01-randread-qd32-iouring.json');
    const [o] = evaluateAssertions(plain, ['randread-qd32.clat_ns.p97.5 <= 1ms']);
    expect(o).toMatchObject({ passed: false, measured: null });
    expect(o.message).toMatch(/no percentile 97.5 and no histogram bins/);
  });

  it('defaults the direction to the only one with I/O, and refuses to guess for a mixed job', () => {
    const rw = fioSample('03-randrw7030-nj2-group_reporting.json');
    const [guess, named] = evaluateAssertions(rw, ['randrw-7030.iops > 0', 'randrw-7030.write.iops > 0']);
    expect(guess.passed).toBe(false);
    expect(guess.message).toMatch(/did read and write: name the direction \(randrw-7030\.read\.iops or randrw-7030\.write\.iops\)/);
    expect(named).toMatchObject({ passed: true, dir: 'write', measured: rw.jobs[0].write!.iops });
    const mixed = fioSample('16-randrw-unified_rw_reporting-mixed.json');
    expect(evaluateAssertions(mixed, ['mixed.iops > 0'])[0]).toMatchObject({ passed: true, dir: 'mixed', measured: mixed.jobs[0].mixed!.iops });
  });

  it('fails assertions on a job the result does not have or has twice', () => {
    const twice = fioSample('04-randrw7030-nj2-no-group_reporting.json');
    expect(evaluateAssertions(twice, ['randrw-7030.read.iops > 0'])[0].message).toMatch(/2 entries are named 'randrw-7030'/);
    expect(evaluateAssertions(randread, ['nope.iops > 0'])[0]).toMatchObject({ passed: false, measured: null, message: "no job named 'nope' in the result" });
  });

  it('judges the job error and lat_ns percentiles', () => {
    const trim = fioSample('09-randtrim-iouring.json');
    expect(evaluateAssertions(trim, ['trim.error == 0'])[0]).toMatchObject({ passed: false, measured: 25, dir: null });
    const all = fioSample('18-slat-clat-lat-percentiles-jsonplus.json');
    const lat99 = all.jobs[0].read!.lat_ns.percentile!['99.000000'];
    expect(evaluateAssertions(all, ['allpct.lat_ns.p99 == ' + lat99])[0]).toMatchObject({ passed: true, measured: lat99 });
  });

  it('records the outcomes under volbench.assertions without touching fio\'s keys', () => {
    const outcomes = evaluateAssertions(randread, ['randread-qd32.iops > 0']);
    const doc = withAssertions(randread, outcomes);
    expect(doc.jobs).toBe(randread.jobs);
    expect(doc.volbench?.assertions).toEqual(outcomes);
    expect(Object.keys(doc.volbench!.assertions![0])).toEqual(
      ['expr', 'job', 'dir', 'metric', 'op', 'wanted', 'measured', 'passed', 'unit', 'message'],
    );
    expect(randread.volbench).toBeUndefined();
  });
});
