// The adapter from the volume catalog to the throttle's plain numbers: the one place that knows
// both. It asks the catalog's public entitlement model for the rates (4 KiB random for IOPS, a
// large sequential size for throughput; a full bucket for the burst phase, an empty one
// for the baseline) and reads bucket sizes from the type's burst entry, so when the entitlement
// model moves or changes, only this file follows it. It reads the library's sources, so it never
// sees a stale build's catalog.
import {
  entitlement, instanceType, parseVolume, scaleEntitlement, volumeOf, volumeType, type Entitlement, type Volume, type VolumeInput,
} from '../../src/cloud/index.js';
import type { LimiterSpec, Rates, Scale, ThrottleSpec } from './throttle-model.js';

const MiB = 1024 * 1024;
/** Large enough that any type's IOPS limit at its counted size is above its throughput limit. */
const LARGE_IO = 64 * MiB;
/** Small enough that no type's throughput binds it. */
const SMALL_IO = 4096;

/** The volume's rates for one phase: IOPS (of small random I/O) and bps, or only what binds. */
function volumeRates(spec: Volume, countedBytes: number, burstBalance: number, hdd: boolean): Rates {
  const small = entitlement(spec, { bs: SMALL_IO, sequential: false, burstBalance });
  const large = entitlement(spec, { bs: LARGE_IO, sequential: true, burstBalance });
  const bps = Math.round(large.entitled.mibps * MiB);
  // HDD: small I/Os are bound by throughput (each counts whole), which smallIoCountsWhole expresses.
  if (hdd) return { bps };
  const iops = small.entitled.iops;
  return iops * countedBytes > bps ? { iops, bps } : { iops };
}

/** A checked volume from its text (either grammar) or its figures. */
function volumeFrom(volume: Volume | VolumeInput | string): Volume {
  return typeof volume === 'string' ? parseVolume(volume, { field: 'volume', onOldForm: () => {} }) : volumeOf(volume);
}

/**
 * The throttle spec of `volume` (a VolumeSpec or its text, 'gp2:size=100g') behind `instance`'s
 * EBS limits (omit it for the volume alone), in AWS's own numbers: scale with scaleSpec().
 */
export function specFromCatalog(volume: Volume | VolumeInput | string, instance?: string): ThrottleSpec {
  const spec = volumeFrom(volume);
  const type = volumeType(spec.type);
  if (type.from_instance) throw new RangeError(`${spec.type}: instance store has no EBS model to throttle to`);
  const countedBytes = type.io_size_kib * 1024;
  const hdd = type.media === 'hdd';
  const burstRates = volumeRates(spec, countedBytes, 1, hdd);
  const baseRates = volumeRates(spec, countedBytes, 0, hdd);
  const volumeLimiter: LimiterSpec = { name: 'volume', baseline: baseRates, countedIoBytes: countedBytes, ...(hdd ? { smallIoCountsWhole: true } : {}) };
  const b = type.burst;
  const bursts = JSON.stringify(burstRates) !== JSON.stringify(baseRates);
  if (bursts && b?.kind === 'iops') {
    volumeLimiter.burst = burstRates;
    volumeLimiter.bucket = { unit: 'ios', size: b.bucket, refillPerS: b.refill_per_gib_s * spec.sizeGiB };
  } else if (bursts && b?.kind === 'throughput') {
    volumeLimiter.burst = burstRates;
    volumeLimiter.bucket = { unit: 'bytes', size: b.bucket_mib_per_tib * (spec.sizeGiB / 1024) * MiB, refillPerS: baseRates.bps! };
  } else if (bursts) {
    throw new RangeError(`${spec.type}: burst kind '${b?.kind}' has no throttle adapter yet`);
  }
  const limiters = [volumeLimiter];
  if (instance) {
    const ebs = instanceType(instance).ebs;
    const bytes = (mbps: number) => (mbps * 1e6) / 8;
    const inst: LimiterSpec = { name: 'instance', baseline: { iops: ebs.baseline_iops, bps: bytes(ebs.baseline_mbps) } };
    if (ebs.max_iops > ebs.baseline_iops || ebs.max_mbps > ebs.baseline_mbps) {
      const window = (ebs.burst?.minutes_per_day ?? 30) * 60;
      inst.burst = { iops: ebs.max_iops, bps: bytes(ebs.max_mbps) };
      inst.bucket = { unit: 'seconds', size: window, refillPerS: window / 86400 };
    }
    limiters.push(inst);
  }
  return { limiters };
}

/** An entitlement (from src/cloud's entitlement()) as the scaled emulation should deliver it: the library's own scaling. */
export function scaledEntitlement<E extends Entitlement>(e: E, scale: Scale): E {
  return scaleEntitlement(e, scale);
}
