/**
 * Prices that stay true: `volbench prices refresh` reads the AWS Price List API and writes a
 * dated prices file; `--prices FILE` (or VOLBENCH_PRICES) puts it in place of the shipped prices
 * in catalog price, fleet plan, report and run; a price older than 180 days is warned about,
 * naming its date.
 *
 * moto 5.x has no Price List (pricing) API, so the GetProducts documents here are written in the
 * shape AWS documents and returns (format aws_v1: product, attributes, OnDemand terms, price
 * dimensions; usage types with a region prefix outside us-east-1; gp3 throughput in GiBps-mo),
 * checked by the parser directly, and served end to end by a small local server speaking the
 * Pricing API's JSON protocol to the real AWS SDK client the command uses.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCatalog, parsePriceList, parsePricesFile, staleWarning, today } from '../../src/cloud/index.js';
import { CLI, ROOT } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'dist');

const dir = mkdtempSync(join(tmpdir(), 'volbench-prices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let sku = 0;
/** One GetProducts PriceList entry as the API returns it: a JSON document in a string. */
function product(family: string, region: string, attrs: Record<string, string>, unit: string, usd: number, description: string): string {
  const id = `SKU${String(++sku).padStart(13, '0')}`;
  const term = `${id}.JRTCKXETXF`;
  const prefix = region === 'us-east-1' ? '' : `${{ 'eu-central-1': 'EUC1', 'us-west-2': 'USW2' }[region] ?? 'XX1'}-`;
  return JSON.stringify({
    product: {
      productFamily: family,
      attributes: { servicecode: 'AmazonEC2', location: region, locationType: 'AWS Region', regionCode: region, servicename: 'Amazon Elastic Compute Cloud', operation: '', ...attrs, usagetype: `${prefix}${attrs.usagetype}` },
      sku: id,
    },
    serviceCode: 'AmazonEC2',
    terms: {
      OnDemand: {
        [term]: {
          priceDimensions: {
            [`${term}.6YS6EN2CT7`]: { unit, endRange: 'Inf', description, appliesTo: [], rateCode: `${term}.6YS6EN2CT7`, beginRange: '0', pricePerUnit: { USD: usd.toFixed(10) } },
          },
          sku: id, effectiveDate: '2026-11-01T00:00:00Z', offerTermCode: 'JRTCKXETXF', termAttributes: {},
        },
      },
    },
    version: '20261120185216',
    publicationDate: '2026-11-20T18:52:16Z',
  });
}

/** A region's EBS price list at `k` times us-east-1's prices. */
function ebsPriceList(region: string, k = 1): string[] {
  const storage = (type: string, usage: string, usd: number) =>
    product('Storage', region, { volumeApiName: type, usagetype: usage, storageMedia: 'SSD-backed', volumeType: type }, 'GB-Mo', usd * k, `$${usd * k} per GB-month of ${type} provisioned storage`);
  const iops = (type: string, usage: string, usd: number) =>
    product('System Operation', region, { volumeApiName: type, usagetype: usage, group: 'EBS IOPS', groupDescription: 'IOPS', provisioned: 'Yes' }, 'IOPS-Mo', usd * k, `$${usd * k} per IOPS-month provisioned`);
  return [
    storage('gp3', 'EBS:VolumeUsage.gp3', 0.08),
    iops('gp3', 'EBS:VolumeP-IOPS.gp3', 0.005),
    product('Provisioned Throughput', region, { volumeApiName: 'gp3', usagetype: 'EBS:VolumeP-Throughput.gp3', group: 'EBS Throughput', provisioned: 'Yes' },
      'GiBps-mo', 40.96 * k, `$${0.04 * k} per provisioned MiBps-month of gp3`),
    storage('gp2', 'EBS:VolumeUsage.gp2', 0.1),
    storage('io1', 'EBS:VolumeUsage.piops', 0.125),
    iops('io1', 'EBS:VolumeP-IOPS.piops', 0.065),
    storage('io2', 'EBS:VolumeUsage.io2', 0.125),
    iops('io2', 'EBS:VolumeP-IOPS.io2', 0.065),
    iops('io2', 'EBS:VolumeP-IOPS.io2.tier2', 0.0455),
    iops('io2', 'EBS:VolumeP-IOPS.io2.tier3', 0.03185),
    storage('st1', 'EBS:VolumeUsage.st1', 0.045),
    storage('sc1', 'EBS:VolumeUsage.sc1', 0.015),
    storage('standard', 'EBS:VolumeUsage', 0.05),
    product('System Operation', region, { volumeApiName: 'standard', usagetype: 'EBS:VolumeIOUsage', group: 'EBS I/O Requests', provisioned: 'No' }, 'IOs', 0.00000005 * k, `$${0.05 * k} per 1 million I/O requests`),
  ];
}

describe('the Price List parser', () => {
  it("reads us-east-1's documents back to the catalog's shipped us-east-1 prices", () => {
    const parsed = parsePriceList(ebsPriceList('us-east-1'), 'us-east-1');
    expect(parsed.missing).toEqual({});
    for (const t of loadCatalog()[0].types) {
      const { source: _s, as_of: _a, confidence: _c, ...shipped } = t.prices['us-east-1'];
      expect(parsed.prices[t.type], t.type).toEqual(shipped);
    }
  });

  it('takes only the region asked for, skips what is not an EBS price, strips usage-type prefixes', () => {
    const other = product('Compute Instance', 'eu-central-1', { usagetype: 'EUC1-BoxUsage:m6i.large', instanceType: 'm6i.large' }, 'Hrs', 0.115, 'm6i.large');
    const parsed = parsePriceList([...ebsPriceList('us-west-2', 3), ...ebsPriceList('eu-central-1', 1.2), other], 'eu-central-1');
    expect(parsed.prices.gp3).toEqual({ storage_gb_month: 0.096, iops_month: 0.006, throughput_mibps_month: 0.048 });
    expect(parsed.prices.io2?.iops_month_tiers).toEqual([{ up_to: 32000, usd: 0.078 }, { up_to: 64000, usd: 0.0546 }, { up_to: null, usd: 0.03822 }]);
    expect(parsed.prices.standard).toEqual({ storage_gb_month: 0.06, per_million_requests: 0.06 });
  });

  it('leaves out a type missing a component it is billed for, saying which', () => {
    const list = ebsPriceList('us-east-1').filter((d) => !d.includes('VolumeP-IOPS.io2.tier3') && !d.includes('VolumeP-Throughput'));
    const parsed = parsePriceList(list, 'us-east-1');
    expect(parsed.prices.io2).toBeUndefined();
    expect(parsed.prices.gp3).toBeUndefined();
    expect(parsed.missing.io2).toContain("io2's three IOPS tiers");
    expect(parsed.missing.gp3).toContain('provisioned throughput');
    expect(parsed.prices.io1).toBeDefined();
  });

  it('a price older than 180 days is a warning naming its date', () => {
    expect(staleWarning('2026-01-01', new Date('2026-11-24T00:00:00Z'))).toMatch(/^prices as of 2026-01-01 are 327 days old/);
    expect(staleWarning('2026-06-01', new Date('2026-11-24T00:00:00Z'))).toBeUndefined();
  });
});

interface Outcome { code: number | null; stdout: string; stderr: string }

function run(args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment with no AWS settings of the user's: no credentials, no profile, no IMDS. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && k !== 'VOLBENCH_PRICES'));
  return { ...env, AWS_EC2_METADATA_DISABLED: 'true', AWS_CONFIG_FILE: join(dir, 'no-config'), AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'), ...extra };
}

describe('volbench prices refresh, and --prices', () => {
  let server: Server;
  let endpoint: string;
  const calls: Array<{ target: string; filters: Record<string, string>; token?: string }> = [];
  const catalog = [...ebsPriceList('eu-central-1', 1.2), ...ebsPriceList('us-west-2', 3)];

  beforeAll(async () => {
    // The Pricing API's protocol (JSON 1.1): POST /, X-Amz-Target names the action. Pages of
    // two, so the command must follow NextToken.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const input = JSON.parse(body || '{}') as { ServiceCode?: string; Filters?: Array<{ Field: string; Value: string }>; NextToken?: string };
        const filters = Object.fromEntries((input.Filters ?? []).map((f) => [f.Field, f.Value]));
        calls.push({ target, filters, token: input.NextToken });
        if (target !== 'AWSPriceListService.GetProducts' || input.ServiceCode !== 'AmazonEC2' || !String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256')) {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: 'InvalidParameterException', message: 'bad request' }));
          return;
        }
        const matching = catalog.filter((text) => {
          const p = JSON.parse(text) as { product: { productFamily: string; attributes: Record<string, string> } };
          return Object.entries(filters).every(([k, v]) => (k === 'productFamily' ? p.product.productFamily : p.product.attributes[k]) === v);
        });
        const from = Number(input.NextToken ?? 0);
        const page = matching.slice(from, from + 2);
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({
          FormatVersion: 'aws_v1', PriceList: page, ...(from + 2 < matching.length ? { NextToken: String(from + 2) } : {}),
        }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const withApi = () => bareEnv({ AWS_ENDPOINT_URL: endpoint, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' });

  it('writes a dated prices file from GetProducts, every page, filtered by family, volume type and region', async () => {
    const file = join(dir, 'prices.json');
    const out = await run(['prices', 'refresh', '--region', 'eu-central-1', '--out', file], withApi());
    expect(out.code, out.stderr).toBe(0);
    const doc = parsePricesFile(readFileSync(file, 'utf8'), file);
    expect(doc.as_of).toBe(today());
    expect(doc.source).toBe('https://api.pricing.us-east-1.amazonaws.com/');
    expect(Object.keys(doc.prices).sort()).toEqual(['gp2', 'gp3', 'io1', 'io2', 'sc1', 'st1', 'standard']);
    expect(doc.prices.gp3['eu-central-1']).toEqual({ storage_gb_month: 0.096, iops_month: 0.006, throughput_mibps_month: 0.048,
      source: 'https://api.pricing.us-east-1.amazonaws.com/', as_of: today(), confidence: 'H' });
    expect(calls.every((c) => c.filters.regionCode === 'eu-central-1' && c.filters.volumeApiName && c.filters.productFamily)).toBe(true);
    // io2's IOPS: three products, two pages.
    expect(calls.filter((c) => c.filters.volumeApiName === 'io2' && c.filters.productFamily === 'System Operation').map((c) => c.token)).toEqual([undefined, '2']);
    expect(out.stderr).toContain('7 EBS types priced in eu-central-1');

    // A second region joins the same file.
    const again = await run(['prices', 'refresh', '--region', 'us-west-2', '--out', file], withApi());
    expect(again.code, again.stderr).toBe(0);
    const both = parsePricesFile(readFileSync(file, 'utf8'), file);
    expect(Object.keys(both.prices.gp3).sort()).toEqual(['eu-central-1', 'us-west-2']);
    expect(both.prices.gp3['us-west-2'].storage_gb_month).toBe(0.24);
  });

  it('--prices FILE and VOLBENCH_PRICES: catalog price, fleet plan and report use the file', async () => {
    const file = join(dir, 'prices.json');
    const args = ['catalog', 'price', 'gp3', '--size', '500g', '--iops', '6000', '--throughput', '250', '--region', 'eu-central-1', '--format', 'json'];
    const flag = await run([...args, '--prices', file], bareEnv());
    expect(flag.code, flag.stderr).toBe(0);
    // 500 × 0.096 + 3,000 × 0.006 + 125 × 0.048
    expect(JSON.parse(flag.stdout).price).toMatchObject({ storage: 48, iops: 18, throughput: 6, total: 72, as_of: today(), source: 'https://api.pricing.us-east-1.amazonaws.com/' });
    const env = await run(args, bareEnv({ VOLBENCH_PRICES: file }));
    expect(JSON.parse(env.stdout).price.total).toBe(72);
    // Without it, eu-central-1 is not in the shipped prices.
    const shipped = await run(args, bareEnv());
    expect(shipped.code).toBe(2);
    // A type and region the file lacks: the shipped price.
    const us = await run(['catalog', 'price', 'gp3', '--size', '500g', '--region', 'us-east-1', '--format', 'json', '--prices', file], bareEnv());
    expect(JSON.parse(us.stdout).price).toMatchObject({ total: 40, as_of: '2026-11-22' });

    const plan = await run(['fleet', 'plan', '--volumes', 'gp3:500g', '--instance', 'm6i.large', '--region', 'eu-central-1', '--state-dir', dir,
      '--format', 'json', '--prices', file], bareEnv());
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).members[0].volumeMonthly).toEqual({
      usd: 500 * 0.096 + 0, source: 'https://api.pricing.us-east-1.amazonaws.com/', as_of: today(), confidence: 'H',
    });

    // A result that carries a price of its own is repriced from the file it was asked for.
    const result = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/publish/aws-ssd-vol-a.json'), 'utf8'));
    result.volbench.cloud = { provider: 'aws', region: 'eu-central-1', volume: { type: 'gp3', size_gib: 500, iops: 6000, throughput_mibps: 250 },
      price: { usd_per_month: 1, as_of: '2026-01-01', source: 'an older price list' } };
    const resultFile = join(dir, 'result.json');
    writeFileSync(resultFile, JSON.stringify(result));
    const carried = await run(['report', resultFile, '--format', 'json'], bareEnv());
    expect(carried.code, carried.stderr).toBe(0);
    const rowOf = (o: Outcome) => JSON.parse(o.stdout).groups[0].rows[0];
    expect(rowOf(carried)).toMatchObject({ usd_per_month: 1, price_as_of: '2026-01-01' });
    expect(carried.stderr).toContain('prices as of 2026-01-01 are');
    const repriced = await run(['report', resultFile, '--format', 'json', '--prices', file], bareEnv());
    expect(repriced.code, repriced.stderr).toBe(0);
    expect(rowOf(repriced)).toMatchObject({ usd_per_month: 72, price_as_of: today() });
    expect(repriced.stderr).not.toContain('days old');
  });

  it('a prices file older than 180 days: catalog price and fleet plan warn, naming its date', async () => {
    const file = join(dir, 'old.json');
    const doc = parsePricesFile(readFileSync(join(dir, 'prices.json'), 'utf8'), 'prices.json');
    doc.as_of = '2025-03-01';
    for (const byRegion of Object.values(doc.prices)) for (const p of Object.values(byRegion)) p.as_of = '2025-03-01';
    writeFileSync(file, JSON.stringify(doc));
    const price = await run(['catalog', 'price', 'gp2', '--size', '100g', '--region', 'eu-central-1', '--prices', file], bareEnv());
    expect(price.code, price.stderr).toBe(0);
    expect(price.stdout).toContain('as of 2025-03-01');
    expect(price.stderr).toMatch(/warning: prices as of 2025-03-01 are \d+ days old \(over 180\)/);
    const plan = await run(['fleet', 'plan', '--volumes', 'gp2:100g', '--instance', 'm6i.large', '--region', 'eu-central-1', '--state-dir', dir, '--prices', file], bareEnv());
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/warning: prices as of 2025-03-01 are \d+ days old/);
  });

  it('no credentials: refresh fails with ECLOUD naming pricing:GetProducts and what to configure', async () => {
    const out = await run(['prices', 'refresh', '--region', 'eu-central-1', '--out', join(dir, 'none.json')], bareEnv({ AWS_ENDPOINT_URL: endpoint }));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('pricing:GetProducts: no AWS credentials');
    expect(out.stderr).toContain('[credentials]');
  });

  it('refuses a bad region, a bad prices file and an unknown type in one, naming the field', async () => {
    const region = await run(['prices', 'refresh', '--region', 'Frankfurt'], withApi());
    expect(region.code).toBe(2);
    expect(region.stderr).toContain('[--region]');
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{');
    const bad = await run(['catalog', 'list', '--prices', notJson], bareEnv());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/prices file .*bad\.json is not JSON/);
    const unknown = join(dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ provider: 'aws', service: 'ebs', as_of: '2026-11-24', source: 'https://example.com/', prices: { gp4: {} } }));
    const typo = await run(['catalog', 'list', '--prices', unknown], bareEnv());
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/prices\.gp4: unknown volume type 'gp4'; did you mean 'gp3'\?/);
    const missing = await run(['catalog', 'list', '--prices', join(dir, 'nowhere.json')], bareEnv());
    expect(missing.stderr).toContain('cannot read prices file');
  });
});
