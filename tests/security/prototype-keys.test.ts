/**
 * Regression (security review, third round): a user's string used as a key of a plain object
 * reached Object.prototype. `/v1/catalog/aws/gp3?region=__proto__` (or constructor, toString)
 * answered 500; a steady-state criterion `constructor:1` was accepted as one; a runtime of
 * `1constructor` failed as "NaN"; a result naming its suite `constructor` crashed the report; a
 * fleet endpoint map could not hold a label `__proto__`. Expected: every such name is looked up
 * among the table's own keys, and refused (or not found) like any other unknown name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { instanceHourly, regionPrice } from '../../src/cloud/index.js';
import { readEndpointMap } from '../../src/fleet/run.js';
import { parseSpec } from '../../src/jobspec/index.js';
import { buildPublishReport, catalogPricer, renderMarkdown } from '../../src/publish/index.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';
import { startServer, type TestServer } from '../api/helpers/server.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

const needs = requires('tmpfs');

/** Every name Object.prototype answers to. */
const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype);

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

describe('prototype names as keys', () => {
  it('are unknown regions, types, providers and instances to the catalog routes, never a 500', async () => {
    for (const key of PROTO_KEYS) {
      const q = encodeURIComponent(key);
      const region = await server.client.get(`/v1/catalog/aws/gp3?size=500g&region=${q}`);
      expect(region.status, key).toBe(400);
      expect(region.body.field, key).toBe('query.region');
      const instance = await server.client.get(`/v1/catalog/aws/gp3?size=500g&instance=${q}`);
      expect(instance.status, key).toBe(400);
      expect(instance.body.field, key).toBe('query.instance');
      expect((await server.client.get(`/v1/catalog/aws/${q}?size=500g`)).status, key).toBe(404);
      expect((await server.client.get(`/v1/catalog/${q}/gp3?size=500g`)).status, key).toBe(404);
    }
  });

  it('are not prices, steady-state criteria, time units or instance prices', () => {
    for (const key of PROTO_KEYS) {
      expect(regionPrice('gp3', key), key).toBeUndefined();
      expect(instanceHourly(key, 'us-east-1'), key).toBeUndefined();
      const ss = errorOf(() => parseSpec({ jobs: [{ name: 'a', rw: 'read', size: '1m', runtime: '2s', steadystate: `${key}:1`, ss_dur: '1s' }] }));
      expect(ss.field, key).toBe('jobs[0].steadystate');
      expect(ss.message, key).toContain('is not a steady-state criterion');
    }
    const unit = errorOf(() => parseSpec({ jobs: [{ name: 'a', rw: 'read', size: '1m', runtime: '1constructor' }] }));
    expect(unit.field).toBe('jobs[0].runtime');
    expect(unit.message).toContain("unknown time unit 'constructor'");
  });

  it('are suite names and regions a report does not know: the row is reported, unpriced', () => {
    for (const key of PROTO_KEYS) {
      const doc = {
        jobs: [{ jobname: 'rr', groupid: 0, error: 0, read: { iops: 100, bw_bytes: 409600, total_ios: 100 } }],
        volbench: { suite: { name: key }, cloud: { volume_type: 'gp3', size_gib: 500, region: key } },
      } as unknown as FioJson;
      const report = buildPublishReport([{ source: 'doc.json', result: doc }], { priceVolume: catalogPricer() });
      expect(report.groups[0].suite, key).toBeNull();
      expect(report.groups[0].rows[0].usd_per_month, key).toBeNull();
      expect(renderMarkdown(report), key).toContain('| doc.json |');
    }
  });

  it('are labels of a fleet endpoint map like any other', () => {
    const dir = mkdtempSync(join(tmpdir(), `volbench-proto-${process.pid}-`));
    try {
      const file = join(dir, 'endpoints.json');
      writeFileSync(file, JSON.stringify(Object.fromEntries(PROTO_KEYS.map((k, i) => [k, `http://10.0.0.${i + 1}:8080`]))));
      const map = readEndpointMap(file);
      expect(Object.keys(map).sort()).toEqual([...PROTO_KEYS].sort());
      expect(map.__proto__).toBe(`http://10.0.0.${PROTO_KEYS.indexOf('__proto__') + 1}:8080`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
