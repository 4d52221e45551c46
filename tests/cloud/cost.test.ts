/**
 * The one cost module: a volume a month and an instance an hour, each dated and sourced (the
 * instance prices from catalog/aws-ec2-prices.json), the one rule for a region without prices,
 * a fleet's cost for its hours, and a volume's price per unit of performance.
 */
import { describe, expect, it } from 'vitest';

import {
  fleetUsd, fleetUsdPerHour, HOURS_PER_MONTH, instanceHourly, loadInstancePrices, parseVolume, pricedRegion, usdPer1000Iops, usdPerMibps,
  volumeMonthly,
} from '../../src/cloud/index.js';
import { requires } from '../helpers/requires.js';

requires();

describe('prices', () => {
  it('instance prices come from their own catalog file, with its source and date', () => {
    const file = loadInstancePrices();
    expect(file.source).toMatch(/^https:\/\//);
    expect(file.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(instanceHourly('m6i.large', 'us-east-1')).toEqual({ usd: 0.096, source: file.source, as_of: file.as_of, confidence: 'M' });
  });

  it('a region without prices takes the default region, and says so; a type without any has none', () => {
    expect(instanceHourly('m6i.large', 'eu-central-1')?.region_used).toBe('us-east-1');
    expect(instanceHourly('m6in.large', 'us-east-1')).toBeUndefined();
    const gp3 = parseVolume('gp3:500g:iops=6000:throughput=250');
    expect(volumeMonthly(gp3, 'us-east-1')?.usd).toBe(60);
    // Without the fallback (a result's own region), a region without prices is unpriced.
    expect(volumeMonthly(gp3, 'mars-1')).toBeUndefined();
    expect(volumeMonthly(gp3, 'mars-1', { fallback: true })).toMatchObject({ usd: 60, region_used: 'us-east-1' });
    // Each provider's own default region when none is named.
    expect(volumeMonthly(parseVolume('premium-ssd:100g'))?.usd).toBeGreaterThan(0);
  });

  it('the rule itself', () => {
    expect(pricedRegion(['a-1', 'b-1'], 'b-1', 'a-1', false)).toEqual({ region: 'b-1' });
    expect(pricedRegion(['a-1'], 'c-1', 'a-1', true)).toEqual({ region: 'a-1', used: 'a-1' });
    expect(pricedRegion(['a-1'], 'c-1', 'a-1', false)).toBeUndefined();
  });
});

describe("a fleet's cost", () => {
  const inst = { usd: 0.1, source: 's', as_of: '2026-01-01' };
  const vol = { usd: 73, source: 's', as_of: '2026-01-01' };

  it('is one instance per volume and each volume prorated over 730 hours', () => {
    expect(HOURS_PER_MONTH).toBe(730);
    expect(fleetUsdPerHour(inst, [vol, vol])).toEqual({ usd: 0.1 * 2 + 2 * (73 / 730), complete: true });
    expect(fleetUsd(inst, [vol, vol], 10)).toBe(4);
  });

  it("counts each member's root volume (prorated) and public address (by the hour)", () => {
    const root = { usd: 7.3, source: 's', as_of: '2026-01-01' };
    const ip = { usd: 0.005, source: 's', as_of: '2024-02-01' };
    expect(fleetUsdPerHour(inst, [vol, vol], { rootVolumeMonthly: root, publicIpv4Hourly: ip }).usd).toBeCloseTo(2 * (0.1 + 0.01 + 0.005) + 2 * 0.1, 10);
    expect(fleetUsd(inst, [vol, vol], 10, { rootVolumeMonthly: root, publicIpv4Hourly: ip })).toBe(4.3);
  });

  it('is unknown where a price is, yet counts what it knows so far', () => {
    expect(fleetUsd(undefined, [vol], 10)).toBeUndefined();
    expect(fleetUsdPerHour(undefined, [vol])).toEqual({ usd: 0.1, complete: false });
  });
});

describe('price per unit of performance', () => {
  it('is $ a month per 1,000 IOPS and per MiB/s, none without a price or a rate', () => {
    expect(usdPer1000Iops(60, 6000)).toBe(10);
    expect(usdPerMibps(60, 250)).toBe(0.24);
    expect(usdPer1000Iops(null, 6000)).toBeNull();
    expect(usdPerMibps(60, 0)).toBeNull();
  });
});
