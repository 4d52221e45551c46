/**
 * GET /v1/catalog and GET /v1/catalog/{provider}/{type}: the catalog over HTTP, answering what
 * `volbench catalog price` and `entitled` answer, with the AWS worked examples; a volume the
 * type does not allow is refused naming the query field and the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { entitlement, loadCatalog, loadInstances, parseVolume, priceVolume } from '../../src/cloud/index.js';
import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

/** A request the catalog route refuses with 400, naming `field`: its problem body. */
async function refused(path: string, field: string): Promise<any> {
  const res = await server.client.get(path);
  expect(res.status, path).toBe(400);
  expect(res.body.field, path).toBe(field);
  return res.body;
}

describe('catalog routes', () => {
  it('lists every provider file and instance type, with sources and dates', async () => {
    const res = await server.client.get('/v1/catalog');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog', res);
    const body = res.body as { providers: Array<{ provider: string; types: Array<{ type: string; size_gib: { source: string } }> }>; instances: Array<{ type: string }> };
    expect(body.providers.map((p) => p.provider)).toEqual(loadCatalog().map((c) => c.provider));
    expect(body.providers[0].types.map((t) => t.type)).toEqual(expect.arrayContaining(['gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1', 'standard']));
    // Every limit names its source: a page (https://...) or, where none was read, the source by name at M or L.
    const sizes = body.providers.flatMap((p) => p.types).map((t) => t.size_gib as { source: string; confidence?: string });
    expect(sizes.every((s) => /^https:\/\//.test(s.source) || /^[ML]$/.test(s.confidence ?? ''))).toBe(true);
    expect(body.instances).toHaveLength(loadInstances().length);
  });

  it("prices gp3 500 GiB with 6,000 IOPS and 250 MiB/s at AWS's worked example, $60.00", async () => {
    const res = await server.client.get('/v1/catalog/aws/gp3?size=500g&iops=6000&throughput=250&region=us-east-1');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', res);
    expect(res.body.volume).toEqual({ type: 'gp3', size_gib: 500, iops: 6000, throughput_mibps: 250 });
    expect(res.body.price).toMatchObject({ region: 'us-east-1', storage: 40, iops: 15, throughput: 5, total: 60 });
    expect(res.body.entitlement).toMatchObject({ bs: 4096, rw: 'randread', entitled: { iops: 6000, bound_by: 'volume-iops' } });
  });

  it('entitles gp2 100 GiB on m6i.large as the library does, with its burst', async () => {
    const res = await server.client.get('/v1/catalog/aws/gp2?size=100g&instance=m6i.large&bs=4k');
    expect(res.status).toBe(200);
    const e = entitlement(parseVolume('gp2:100g'), { bs: 4096, sequential: false, instance: 'm6i.large' });
    expect(res.body.entitlement).toMatchObject({ entitled: e.entitled, instance: 'm6i.large' });
    expect(res.body.entitlement.burst).toMatchObject({ baseline: 300, level: 3000 });
    // The default region's price, from the same catalog.
    expect(res.body.price.total).toBe(priceVolume(parseVolume('gp2:100g'), 'us-east-1').total);
  });

  it('refuses what the type does not allow, naming the query field; unknown types are 404 with the closest', async () => {
    const tooMany = await server.client.get('/v1/catalog/aws/gp3?size=10g&iops=20000');
    expect(tooMany.status).toBe(400);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', tooMany);
    expect(tooMany.body).toMatchObject({ field: 'query.iops' });
    expect(tooMany.body.detail).toMatch(/at most 500 IOPS per GiB/);
    await refused('/v1/catalog/aws/gp3?size=1500m', 'query.size');
    await refused('/v1/catalog/aws/gp3?size=100g&region=us-east-9', 'query.region');
    const instance = await refused('/v1/catalog/aws/gp3?size=100g&instance=m6i.largee', 'query.instance');
    expect(instance.detail).toContain("did you mean 'm6i.large'");
    await refused('/v1/catalog/aws/gp3', 'query.size');
    const unknown = await server.client.get('/v1/catalog/aws/gp4?size=100g');
    expect(unknown.status).toBe(404);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', unknown);
    expect(unknown.body.detail).toContain("did you mean 'gp3'");
    const provider = await server.client.get('/v1/catalog/gcp/gp3?size=100g');
    expect(provider.status).toBe(404);
  });

  it("prices GCP and Azure disks in their provider's region and entitles them as the library does", async () => {
    const pd = await server.client.get('/v1/catalog/gcp/pd-balanced?size=100g');
    expect(pd.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', pd);
    expect(pd.body.price).toMatchObject({ region: 'us-central1', total: 10 });
    expect(pd.body.entitlement.entitled).toMatchObject({ iops: 3600, bound_by: 'volume-iops' });
    const p10 = await server.client.get('/v1/catalog/azure/premium-ssd?size=100g');
    expect(p10.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', p10);
    expect(p10.body.price).toMatchObject({ region: 'eastus', tier: 'P10', total: 19.71 });
    expect(p10.body.entitlement.burst).toEqual({ level: 3500, baseline: 500, unit: 'IOPS', seconds_from_full: 1800, seconds_at_job_rate: 1800 });
    const v2 = await server.client.get('/v1/catalog/azure/premium-ssd-v2?size=100g&bs=1m');
    expect(v2.body.volume).toEqual({ type: 'premium-ssd-v2', size_gib: 100, iops: 3000, throughput_mibps: 125 });
    expect(v2.body.entitlement.entitled).toMatchObject({ mibps: 125, bound_by: 'volume-throughput' });
    const region = await refused('/v1/catalog/gcp/pd-ssd?size=100g&region=us-centrl1', 'query.region');
    expect(region.detail).toContain("did you mean 'us-central1'");
    const cap = await refused('/v1/catalog/azure/premium-ssd-v2?size=10g&iops=6000', 'query.iops');
    expect(cap.detail).toMatch(/at most 500 IOPS per GiB .*learn\.microsoft\.com/);
    await refused('/v1/catalog/gcp/pd-ssd?size=100g&instance=m6i.large', 'query.instance');
    const elsewhere = await server.client.get('/v1/catalog/aws/pd-ssd?size=100g');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.detail).toContain("pd-ssd is one of gcp's volume types, not aws's");
  });

  it('entitles instance store from the instance, without a size, and refuses it without an instance', async () => {
    const res = await server.client.get('/v1/catalog/aws/instance-store?instance=i4i.xlarge&rw=randread');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', res);
    expect(res.body.price).toMatchObject({ total: 0 });
    expect(res.body.entitlement).toMatchObject({ entitled: { iops: 62500 }, instance: 'i4i.xlarge', counted_io_kib: 4 });
    const none = await server.client.get('/v1/catalog/aws/instance-store');
    expect(none.status).toBe(400);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', none);
    expect(none.body.field).toBe('query.instance');
    await refused('/v1/catalog/aws/instance-store?instance=i4i.xlarge&size=2t', 'query.size');
  });
});
