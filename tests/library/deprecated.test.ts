/**
 * Names the library and `volbench/fleet` published before one cloud vocabulary (issue 23) still
 * work, marked @deprecated, and answer as the names that replace them.
 */
import { describe, expect, it } from 'vitest';

import {
  checkVolume, entitlement, parseVolume, parseVolumeSpec, priceVolume, runJobs, withCloud, type ReportVolumePrice,
} from '../../src/index.js';
import {
  FLEET_VOLUME_TYPES, fleetTable, fleetVolumeTypes, HOURS_PER_MONTH, instanceHourly, parseFleetVolumes, planFleet, volumeMonthly, type DatedPrice,
  type FleetVolumeType,
} from '../../src/fleet/index.js';
import { volumeMonthly as monthly } from '../../src/cloud/index.js';
import { DEFAULT_PRICE_REGION } from '../../src/publish/index.js';
import { listSuites, SUITES } from '../../src/suites/index.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

requires();

describe('deprecated names', () => {
  it('parseVolumeSpec reads the old form to the same volume as parseVolume', () => {
    const old = parseVolumeSpec('gp3:size=500g,iops=6000,throughput=250');
    expect(old.text).toBe(parseVolume('gp3:500g:iops=6000:throughput=250').text);
    expect(errorOf(() => parseVolumeSpec('gp3:size=10g,iops=20000')).code).toBe('EVOLUME_LIMIT');
  });

  it('checkVolume checks plain figures and returns the catalog entry', () => {
    expect(checkVolume({ type: 'io2', sizeGiB: 100, iops: 16000 }).type).toBe('io2');
    expect(errorOf(() => checkVolume({ type: 'io2', sizeGiB: 100 }, 'v')).field).toBe('v.iops');
  });

  it('entitlement and priceVolume still take plain figures', () => {
    const figures = { type: 'gp3', sizeGiB: 500, iops: 6000, throughputMiBps: 250 };
    const volume = parseVolume('gp3:500g:iops=6000:throughput=250');
    expect(entitlement(figures, { bs: 4096 })).toEqual(entitlement(volume, { bs: 4096 }));
    expect(priceVolume(figures, 'us-east-1').total).toBe(60);
  });

  it('withCloud adds the cloud facts and the findings, as finishRun does', async () => {
    const result = await runJobs({ jobs: [{ name: 'n', ioengine: 'null', rw: 'randread', bs: '4k', size: '1m' }] });
    const annotated = withCloud(result, { volume: { type: 'gp3', sizeGiB: 100 } });
    expect(annotated.volbench.cloud?.volume).toEqual({ type: 'gp3', size_gib: 100, iops: 3000, throughput_mibps: 125 });
    expect(annotated.volbench.jobs[0].entitlement?.expected_iops).toBe(3000);
  });

  it("the fleet's volume list, types, prices and table", () => {
    expect(parseFleetVolumes('gp3:500g,io2:500g:iops=16000')).toEqual([
      { label: 'gp3-500g', type: 'gp3', sizeGiB: 500 },
      { label: 'io2-500g-16000iops', type: 'io2', sizeGiB: 500, iops: 16000 },
    ]);
    const types: readonly FleetVolumeType[] = FLEET_VOLUME_TYPES;
    expect([...types].sort()).toEqual(['gp2', 'gp3', 'instance-store', 'io1', 'io2', 'sc1', 'st1', 'standard']);
    expect(types).toEqual(fleetVolumeTypes());
    const hourly: DatedPrice | undefined = instanceHourly('m6i.large', 'us-east-1');
    expect(hourly?.usd).toBe(0.096);
    expect(HOURS_PER_MONTH).toBe(730);
    expect(volumeMonthly({ label: 'x', type: 'gp3', sizeGiB: 500 }, 'eu-west-9')).toEqual(monthly(parseVolume('gp3:500g'), 'eu-west-9', { fallback: true }));
    const plan = planFleet({ volumes: parseFleetVolumes('gp3:500g'), instanceType: 'm6i.large', region: 'us-east-1' });
    const state = { fleetId: plan.fleetId, region: 'us-east-1', createdAt: '', status: 'up' as const, plan, tokenParameter: '', members: [] };
    expect(fleetTable(state, [])).toMatch(/\| gp3 500 GiB 3000\/125 \| gp3 \| 500 \|/);
  });

  it("the report's default region and price type, and the suite table", () => {
    expect(DEFAULT_PRICE_REGION).toBe('us-east-1');
    const price: ReportVolumePrice = { usd_per_month: 40, as_of: '2026-11-22' };
    expect(price.usd_per_month).toBe(40);
    expect(SUITES.map((s) => s.name)).toEqual(listSuites().map((s) => s.name));
  });
});
