/**
 * The small rules of a fleet's life and placement: an instance type's architecture (Graviton
 * gets arm64), the default time to live and --ttl's bounds, the expiry tag's form and the
 * clock override, what reap takes as expired, and the one rule that a workload must fit the
 * fleet's life (a --ttl shorter than it, or less time left than it, is refused alike).
 */
import { describe, expect, it } from 'vitest';

import { bundleArch, instanceArchitecture } from '../../src/fleet/architecture.js';
import { expired } from '../../src/fleet/reap.js';
import { checkWorkloadFits, defaultTtlSec, expiresAt, fleetNow, parseTtl, secondsLeft } from '../../src/fleet/ttl.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

requires();

describe('instanceArchitecture', () => {
  it('gives Graviton families arm64 and every other x86_64', () => {
    for (const t of ['m7g.large', 'c7gd.xlarge', 'r6gn.large', 'im4gn.large', 'is4gen.large', 'g5g.xlarge', 't4g.micro', 'a1.large', 'x2gd.large']) {
      expect(instanceArchitecture(t), t).toBe('arm64');
    }
    for (const t of ['m6i.large', 'c6a.large', 'g5.xlarge', 'i4i.large', 't3.micro', 'm5d.large', 'x2iedn.xlarge', 'inf2.xlarge']) {
      expect(instanceArchitecture(t), t).toBe('x86_64');
    }
    expect(bundleArch('arm64')).toBe('arm64');
    expect(bundleArch('x86_64')).toBe('x64');
  });
});

describe('time to live', () => {
  it('defaults to the plan twice plus 30 minutes', () => {
    expect(defaultTtlSec(1.5)).toBe(3 * 3600 + 1800);
  });

  it('takes times from 10 minutes to 7 days and names --ttl otherwise', () => {
    expect(parseTtl('90m')).toBe(5400);
    expect(parseTtl('7200')).toBe(7200);
    for (const bad of ['5m', '8d', 'soon', '']) expect(() => parseTtl(bad), bad).toThrow(expect.objectContaining({ code: 'EINVALID_ARGS', field: '--ttl' }));
  });

  it('writes the expiry as ISO-8601 UTC to the second', () => {
    expect(expiresAt(new Date('2030-01-02T03:04:05.678Z'), 3600)).toBe('2030-01-02T04:04:05Z');
    expect(secondsLeft('2030-01-02T04:04:05Z', new Date('2030-01-02T04:00:05Z'))).toBe(240);
  });

  it('takes the clock from --now, else VOLBENCH_NOW, else the real one', () => {
    expect(fleetNow('2031-01-01T00:00:00Z', { VOLBENCH_NOW: '2032-01-01T00:00:00Z' }).toISOString()).toBe('2031-01-01T00:00:00.000Z');
    expect(fleetNow(undefined, { VOLBENCH_NOW: '2032-01-01T00:00:00Z' }).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    expect(Math.abs(fleetNow(undefined, {}).getTime() - Date.now())).toBeLessThan(1000);
    expect(() => fleetNow('yesterday', {})).toThrow(expect.objectContaining({ field: '--now' }));
    expect(() => fleetNow(undefined, { VOLBENCH_NOW: '1700000000' })).toThrow(expect.objectContaining({ field: 'VOLBENCH_NOW' }));
  });

  it('reaps only what carries a readable expiry at or before now', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(expired([{ Key: 'volbench:expires', Value: '2029-12-31T23:59:59Z' }], now)).toBe(true);
    expect(expired([{ Key: 'volbench:expires', Value: '2030-01-01T00:00:00Z' }], now)).toBe(true);
    expect(expired([{ Key: 'volbench:expires', Value: '2030-01-01T00:00:01Z' }], now)).toBe(false);
    expect(expired([{ Key: 'volbench:expires', Value: 'never' }], now)).toBe(false);
    expect(expired([{ Key: 'volbench:fleet', Value: 'vb0123456789' }], now)).toBe(false);
    expect(expired(undefined, now)).toBe(false);
  });
});

describe('checkWorkloadFits', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const fleet = { fleetId: 'vb0123456789', expiresAt: '2030-01-01T00:20:00Z' };

  it('refuses a --ttl shorter than the workload, and the time left short of it, with one code naming --ttl', () => {
    const short = errorOf(() => checkWorkloadFits(fleet, 45 * 60, 30 * 60, now));
    expect(short).toMatchObject({ code: 'EPREFLIGHT', field: '--ttl', accepted: '--ttl of at least 45m' });
    expect(short.message).toBe('fleet vb0123456789: --ttl of 30 min is shorter than the workload (45 min)');
    const late = errorOf(() => checkWorkloadFits(fleet, 45 * 60, undefined, now));
    expect(late).toMatchObject({ code: 'EPREFLIGHT', field: '--ttl', accepted: '--ttl of at least 45m' });
    expect(late.message).toMatch(/^fleet vb0123456789 expires at 2030-01-01T00:20:00Z \(20 min left\), and the workload takes 45 min: /);
  });

  it('lets a workload the TTL (from now) holds run, though the expiry it moves is nearer; and one the time left holds', () => {
    expect(() => checkWorkloadFits(fleet, 45 * 60, 45 * 60, now)).not.toThrow();
    expect(() => checkWorkloadFits(fleet, 20 * 60, undefined, now)).not.toThrow();
    expect(() => checkWorkloadFits({ fleetId: fleet.fleetId }, 7 * 86400, undefined, now)).not.toThrow();
    // Past the expiry: nothing is left, and it says 0 min, not a negative time.
    expect(errorOf(() => checkWorkloadFits(fleet, 60, undefined, new Date('2030-01-01T01:00:00Z'))).message).toContain('(0 min left)');
  });
});
