import { describe, expect, it } from 'vitest';
import { formatJson } from '../../src/fio-output/index.js';
import { escapeString } from '../../src/fio-output/format-json.js';
import { formatFixed } from '../../src/fio-output/printf.js';
import { requires } from '../helpers/requires.js';
import { fixtureText, jsonDocuments } from './samples.js';

requires();

const JSON_SAMPLES = [
  'reference/01-randread-qd32-iouring.json',
  'reference/03-randrw7030-nj2-group_reporting.json',
  'reference/04-randrw7030-nj2-no-group_reporting.json',
  'reference/05-write-fsync1-psync.json',
  'reference/09-randtrim-iouring.json',
  'reference/10-jobfile-global-2groups.json',
  'reference/11-steadystate-iops5pct.json',
  'reference/16-randrw-unified_rw_reporting-mixed.json',
  'reference/17-randrw-unified_rw_reporting-both.json',
  'reference/19-rate_iops2000-description.json',
  'reference/20-per-io-logs-no-log_avg_msec.json',
  'reference/08-bssplit-percentile_list-json+normal.txt',
  'n2-write-fsync4-psync.json+normal.txt',
  'n3-randrw-nj2-both-kb1000-desc.json+normal.txt',
  'n4-jobfile-2groups.json+normal.txt',
  'n5-randrw-mixed-lat_percentiles.json+normal.txt',
];

const JSON_PLUS_SAMPLES = [
  'reference/02-randread-qd32-iouring.jsonplus.json',
  'reference/18-slat-clat-lat-percentiles-jsonplus.json',
  'n1-randrw-nj2-group_reporting.jsonplus+normal.txt',
  'p-number_ios2000.jsonplus.json',
];

describe('formatJson reproduces fio 3.33 byte for byte', () => {
  for (const file of JSON_SAMPLES) {
    it(`json: ${file}`, () => {
      const [doc] = jsonDocuments(fixtureText(file));
      expect(formatJson(JSON.parse(doc), { plus: false })).toBe(doc);
    });
  }
  for (const file of JSON_PLUS_SAMPLES) {
    it(`json+: ${file}`, () => {
      const [doc] = jsonDocuments(fixtureText(file));
      expect(formatJson(JSON.parse(doc), { plus: true })).toBe(doc);
    });
  }

  it('json drops the bins json+ prints (sample 02 without its bins objects)', () => {
    const [doc] = jsonDocuments(fixtureText('reference/02-randread-qd32-iouring.jsonplus.json'));
    const withoutBins = doc.replace(/,\n *"bins" : \{\n[^}]*\}/g, '');
    expect(withoutBins).not.toContain('bins');
    expect(formatJson(JSON.parse(doc), { plus: false })).toBe(withoutBins);
  });
});

describe('fio JSON text details', () => {
  it('prints empty objects and arrays as json.c does', () => {
    expect(formatJson({ a: {}, b: [] }, { plus: false })).toBe('{\n  "a" : {\n\n  },\n  "b" : [\n\n  ]\n}\n');
  });

  it('prints floats by key with %f and everything else as integers', () => {
    const text = formatJson({ iops: 2, N: 3, util: 1 / 3, latency_ns: { '2': 0.01 }, runtime: 2001 });
    expect(text).toBe(
      '{\n  "iops" : 2.000000,\n  "N" : 3,\n  "util" : 0.333333,\n  "latency_ns" : {\n    "2" : 0.010000\n  },\n  "runtime" : 2001\n}\n',
    );
  });

  it('keeps steadystate data means integral, as stat.c adds them', () => {
    const text = formatJson({ steadystate: { max_deviation: 2, data: { bw_mean: 5, iops: [1, 2] } } });
    expect(text).toContain('"max_deviation" : 2.000000');
    expect(text).toContain('"bw_mean" : 5,');
    expect(text).toContain('      "iops" : [\n        1,\n        2\n      ]');
  });

  it('prints the volbench key with integers when integral and 6 decimals otherwise', () => {
    const text = formatJson({ volbench: { version: '0.1.0', n: 3, iops: 2.5, ok: true, disk: null } });
    expect(text).toBe(
      '{\n  "volbench" : {\n    "version" : "0.1.0",\n    "n" : 3,\n    "iops" : 2.500000,\n    "ok" : true,\n    "disk" : null\n  }\n}\n',
    );
  });

  it('escapes strings like json.c (backslash and quote) and keeps control characters valid JSON', () => {
    expect(escapeString('a "b" \\c')).toBe('a \\"b\\" \\\\c');
    expect(escapeString('tab\there')).toBe('tab\\u0009here');
    expect(JSON.parse(formatJson({ desc: 'x\ny "z"' }))).toEqual({ desc: 'x\ny "z"' });
  });

  it("rounds like glibc's %f (exact value, ties to even), not like toFixed", () => {
    expect(formatFixed(0.0078125, 6)).toBe('0.007812');
    expect(formatFixed(0.0234375, 6)).toBe('0.023438');
    expect(formatFixed(2.5, 0)).toBe('2');
    expect(formatFixed(0.125, 2)).toBe('0.12');
    expect(formatFixed(97.546851, 6)).toBe('97.546851');
    expect(formatFixed(1e21, 6)).toBe('1000000000000000000000.000000');
    expect(formatFixed(0, 6)).toBe('0.000000');
  });
});
