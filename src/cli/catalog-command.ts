/**
 * `volbench catalog [list|show TYPE|price TYPE ...|entitled TYPE ...]`: the volume catalog, a
 * volume's monthly price, and what it should deliver for an I/O size. Wiring over src/cloud.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import {
  checkPlacement, checkProvider, describeInstanceTypes, directionOf, entitlement, instanceCatalogFrom, instanceStoreOf, loadCatalog, loadInstances,
  priceRegions, priceVolume, refreshSource, regionPrice, staleWarning, today,
  volumeFromSettingsText, volumeType, type CatalogVolumeType, type Entitlement, type Volume,
} from '../cloud/index.js';
import { awsRegion } from '../cloud/aws-clients.js';
import { VolbenchError } from '../errors.js';
import { parseSize } from '../jobspec/index.js';
import type { CommandIo } from './io.js';
import { checkPriceRegion } from './region-flag.js';

export const CATALOG_USAGE = `Usage:
  volbench catalog [list]                      every known volume type, one line each
  volbench catalog show TYPE                   its limits, burst model and prices, with sources
  volbench catalog price TYPE --size 500g [--iops N] [--throughput MiB/s] [--region R]
  volbench catalog entitled TYPE --size 100g [--iops N] [--throughput MiB/s] [--bs 4k] [--rw randread]
                                               [--burst-balance 0-1] [--instance m6i.large [--instance-baseline]]
  volbench catalog entitled instance-store --instance i4i.xlarge [--bs 4k] [--rw randwrite]
  volbench catalog refresh --instances --region R [--out FILE] [--profile P] [--source TEXT] [--as-of YYYY-MM-DD]
                                               EC2 DescribeInstanceTypes as the instance limits file
                                               (catalog/aws-ec2-instances.json's form); to stdout without --out
  --format table|json  --provider aws|gcp|azure  --prices FILE (EBS prices from volbench prices refresh)
  The region defaults to the provider's: us-east-1 (aws), us-central1 (gcp), eastus (azure).
`;

const OPTIONS = {
  size: { type: 'string' },
  iops: { type: 'string' },
  throughput: { type: 'string' },
  region: { type: 'string' },
  bs: { type: 'string' },
  rw: { type: 'string' },
  'burst-balance': { type: 'string' },
  instance: { type: 'string' },
  'instance-baseline': { type: 'boolean' },
  provider: { type: 'string' },
  format: { type: 'string' },
  instances: { type: 'boolean' },
  out: { type: 'string' },
  profile: { type: 'string' },
  source: { type: 'string' },
  'as-of': { type: 'string' },
} as const;

const SEQUENTIAL = new Set(['read', 'write', 'rw', 'readwrite', 'trim']);
const RW = ['read', 'write', 'rw', 'readwrite', 'randread', 'randwrite', 'randrw', 'trim', 'randtrim'];

/** The type named, refused when --provider names another provider. */
function typeOf(type: string | undefined, provider: string | undefined): CatalogVolumeType {
  if (!type) throw new VolbenchError('EINVALID_ARGS', 'catalog: which volume type? e.g. gp3', { field: 'TYPE', accepted: 'a type from volbench catalog list' });
  const t = volumeType(type);
  if (provider !== undefined && t.provider !== provider) {
    throw new VolbenchError('EINVALID_ARGS', `catalog: ${t.type} is one of ${t.provider}'s volume types, not ${provider}'s`, {
      field: '--provider', accepted: `${t.provider}, or no --provider`,
    });
  }
  return t;
}

const FLAG_FIELDS = { type: 'TYPE', size: '--size', iops: '--iops', throughput: '--throughput', suite: 'TYPE' };

/** The volume the flags describe (instance store is as large as the instance's device unless told otherwise). */
function volumeFrom(type: string | undefined, values: { provider?: string; size?: string; iops?: string; throughput?: string }): Volume {
  const t = typeOf(type, values.provider);
  return volumeFromSettingsText(t.type, values, FLAG_FIELDS, 'catalog');
}

/** `gp3 500 GiB, 6000 IOPS`; a tiered disk with its tier; instance store as the instance has it. */
function describeVolume(spec: Volume, instance: string | undefined): string {
  const t = spec.catalog;
  const tier = spec.tier;
  if (tier) return `${spec.type} ${spec.sizeGiB} GiB (${tier.name}: ${tier.size_gib} GiB, ${tier.iops} IOPS, ${tier.throughput_mibps} MiB/s)`;
  if (t.from_instance && instance !== undefined) {
    const store = instanceStoreOf(instance, '--instance');
    const size = spec.sizeGiB ? `${spec.sizeGiB} GiB of ` : '';
    return `${spec.type} (${size}one of ${instance}'s ${store.devices} × ${store.gb_per_device} GB devices)`;
  }
  return `${spec.type}${spec.sizeGiB ? ` ${spec.sizeGiB} GiB` : ''}${spec.iops ? `, ${spec.iops} IOPS` : ''}${spec.throughputMiBps ? `, ${spec.throughputMiBps} MiB/s` : ''}`;
}

/** A type's price in its provider's default region, as the list shows it. */
function listPrice(t: CatalogVolumeType): string {
  const p = regionPrice(t.type, t.default_region);
  if (!p) return '?';
  if (t.from_instance) return 'included in the instance';
  if (t.tiers && p.tier_month) {
    const first = t.tiers[0];
    return `from $${p.tier_month[first.name]}/month (${first.name}, ${first.size_gib} GiB) (${t.default_region})`;
  }
  return `$${p.storage_gb_month}/GB-month (${t.default_region})`;
}

const n = (v: number) => v.toLocaleString('en-US');

/** The list as columns under a header, each as wide as its widest cell (sizes right-aligned). */
function listTable(rows: ReadonlyArray<CatalogVolumeType & { provider: string; default_region: string }>): string {
  const header = ['provider', 'type', 'media', 'size GiB', 'performance', 'price', 'name'];
  const cells = rows.map((t) => [
    t.provider, t.type, t.media, `${t.size_gib.min}–${t.size_gib.max}`,
    `${t.from_instance ? 'the instance type\'s, up to' : 'up to'} ${n(t.iops.max)} IOPS, ${t.throughput_mibps.max} MiB/s`
      + `${t.tiers ? `, ${t.tiers.length} size tiers` : ''}${t.burst ? ', bursts' : ''}`,
    listPrice(t), t.title,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((r) => r[c].length)));
  return [header, ...cells].map((r) => r.map((cell, c) => (c === 3 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd()).join('\n') + '\n';
}

/** One line: entitled (no merging), merged where that differs, the volume's burst and the instance's. */
export function entitledText(e: Entitlement): string {
  const { entitled: r, entitled_merged: m } = e;
  const merged = m.iops !== r.iops ? `; ${n(m.iops)} IOPS, ${m.mibps} MiB/s if small sequential I/Os merge (${m.bound_by})` : '';
  const ib = e.instance_burst;
  const inst = ib ? `; after the instance's ${ib.after_s / 60} min burst: ${n(ib.iops)} IOPS, ${ib.mibps} MiB/s (${ib.bound_by})` : '';
  return `${n(r.iops)} IOPS, ${r.mibps} MiB/s, bound by ${r.bound_by} (counted in ${e.counted_io_kib} KiB I/Os: ${e.counted_per_io} per I/O)${merged}${burstText(e.burst)}${inst}`;
}

/** `; bursts to 3000 IOPS from a baseline of 600: a full bucket lasts 13,500 s at this rate (2,250 s at the burst level)`. */
function burstText(b: Entitlement['burst']): string {
  if (!b) return '';
  const life = b.seconds_at_job_rate === null ? 'this rate does not drain it' : `a full bucket lasts ${n(b.seconds_at_job_rate)} s at this rate`;
  return `; bursts to ${b.level} ${b.unit} from a baseline of ${b.baseline}: ${life} (${n(b.seconds_from_full)} s at the burst level)`;
}

/** `catalog refresh --instances`: the limits file from DescribeInstanceTypes, to --out or stdout. */
async function refreshInstances(values: { instances?: boolean; region?: string; out?: string; profile?: string; source?: string; 'as-of'?: string }, io: CommandIo): Promise<number> {
  if (!values.instances) throw new VolbenchError('EINVALID_ARGS', 'catalog refresh: what to refresh? --instances', { field: '--instances', accepted: '--instances' });
  const region = awsRegion(values.region);
  const asOf = values['as-of'] ?? today();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new VolbenchError('EINVALID_ARGS', `catalog refresh: --as-of '${asOf.slice(0, 32)}' is not a date`, { field: '--as-of', accepted: 'YYYY-MM-DD' });
  if (values.source !== undefined && !(values.source.length > 0 && values.source.length <= 400)) {
    throw new VolbenchError('EINVALID_ARGS', 'catalog refresh: --source takes 1 to 400 characters', { field: '--source', accepted: 'a source named in words, e.g. "AWS DescribeInstanceTypes as served by moto 5.2.5"' });
  }
  const described = await describeInstanceTypes(region, { profile: values.profile });
  const { file, skipped } = instanceCatalogFrom(described, loadInstances(), { ...refreshSource(region, values.source), as_of: asOf });
  const text = `${JSON.stringify(file, null, 1)}\n`;
  if (values.out === undefined) {
    io.stdout.write(text);
  } else {
    writeFileSync(values.out, text);
    io.stderr.write(`volbench: ${file.instances.length} instance types from ec2:DescribeInstanceTypes in ${region} as of ${file.as_of} (${file.source}, ${file.confidence}) -> ${values.out}\n`);
  }
  if (skipped.length) io.stderr.write(`volbench: ${skipped.length} types without EBS-optimized limits left out (e.g. ${skipped.slice(0, 3).join(', ')})\n`);
  return 0;
}

interface EntitledFlags {
  provider?: string;
  size?: string;
  iops?: string;
  throughput?: string;
  bs?: string;
  rw?: string;
  'burst-balance'?: string;
  instance?: string;
  'instance-baseline'?: boolean;
}

/** `catalog entitled TYPE`: what the volume delivers at a block size and pattern (on an instance). */
function entitledOf(type: string | undefined, values: EntitledFlags, out: (data: unknown, text: string) => void): number {
  const spec = volumeFrom(type, values);
  const bs = parseSize(values.bs ?? '4k', { field: '--bs' });
  const rw = values.rw ?? (bs >= 1024 * 1024 ? 'read' : 'randread');
  if (!RW.includes(rw)) throw new VolbenchError('EINVALID_ARGS', `catalog: --rw '${rw}' is not one of fio's`, { field: '--rw', accepted: RW.join(', ') });
  let burstBalance: number | undefined;
  if (values['burst-balance'] !== undefined) {
    burstBalance = Number(values['burst-balance']);
    if (!(burstBalance >= 0 && burstBalance <= 1)) throw new VolbenchError('EINVALID_ARGS', '--burst-balance takes 0 to 1', { field: '--burst-balance', accepted: '0–1 of a full bucket' });
  }
  checkPlacement(spec, values.instance, '--instance', '--size');
  const e = entitlement(spec, {
    bs, sequential: SEQUENTIAL.has(rw), direction: directionOf(rw), burstBalance, instance: values.instance, instanceBurst: !values['instance-baseline'],
  });
  const on = values.instance && !spec.catalog.from_instance ? ` on ${values.instance}` : '';
  out({ volume: spec, bs, rw, instance: values.instance, entitlement: e }, `${describeVolume(spec, values.instance)}${on} at ${values.bs ?? '4k'} ${rw}: ${entitledText(e)}\n`);
  return 0;
}

export async function catalogCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `catalog: ${(err as Error).message}`, { accepted: 'see volbench catalog --help' });
  }
  const { values, positionals } = parsed;
  const json = values.format === 'json';
  if (values.format !== undefined && !json && values.format !== 'table') {
    throw new VolbenchError('EINVALID_ARGS', `catalog: --format takes table or json, not '${values.format}'`, { field: '--format', accepted: 'table, json' });
  }
  const [sub = 'list', type] = positionals;
  if (values.provider !== undefined) checkProvider(values.provider, '--provider');
  const out = (data: unknown, text: string) => io.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : text);
  switch (sub) {
    case 'list': {
      const catalogs = loadCatalog().filter((c) => !values.provider || c.provider === values.provider);
      const rows = catalogs.flatMap((c) => c.types.map((t) => ({ provider: c.provider, ...t, default_region: c.default_region })));
      out(rows, listTable(rows));
      return 0;
    }
    case 'show': {
      if (!type) throw new VolbenchError('EINVALID_ARGS', 'catalog show: which type?', { field: 'TYPE', accepted: 'e.g. gp3' });
      const found = typeOf(type, values.provider);
      // The prices in use: a prices file's (--prices) where it has them.
      const t = { ...found, prices: Object.fromEntries(priceRegions(found.type).map((r) => [r, regionPrice(found.type, r)])) };
      out(t, `${JSON.stringify(t, null, 2)}\n`);
      return 0;
    }
    case 'price': {
      const spec = volumeFrom(type, values);
      const p = priceVolume(spec, values.region === undefined ? spec.catalog.default_region : checkPriceRegion(values.region, [spec.type]));
      const stale = staleWarning(p.as_of);
      if (stale) io.stderr.write(`volbench: warning: ${stale}\n`);
      out({ volume: spec, price: p }, `${describeVolume(spec, undefined)} in ${p.region}: ` +
        `$${p.storage.toFixed(2)} storage + $${p.iops.toFixed(2)} IOPS + $${p.throughput.toFixed(2)} throughput = $${p.total.toFixed(2)} a month (${p.source}, as of ${p.as_of})\n`);
      return 0;
    }
    case 'entitled':
      return entitledOf(type, values, out);
    case 'refresh':
      return refreshInstances(values, io);
    default:
      throw new VolbenchError('EINVALID_ARGS', `catalog: unknown subcommand '${sub}'`, { accepted: 'list, show, price, entitled, refresh' });
  }
}
