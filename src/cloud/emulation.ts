/**
 * An emulated volume (a rehearsal on one host) is held to the catalog's model scaled: every
 * rate (IOPS, MiB/s, refill) by `rate`, every bucket and burst window by `time`, so a bucket
 * lasts `time` as long. What such a volume should deliver is the entitlement scaled the same
 * way; results carry the scale (`volbench.cloud.emulation`) and every report applies it here.
 */
import type { VolbenchEmulation } from '../fio-output/ebs-stats-section.js';
import type { EntitledRate, ModelEntitlement } from '../fio-output/entitlement-section.js';

export type { VolbenchEmulation } from '../fio-output/ebs-stats-section.js';

const round2 = (n: number) => Math.round(n * 100) / 100;

function scaledRate<R extends Pick<EntitledRate, 'iops' | 'mibps'>>(r: R, rate: number): R {
  return { ...r, iops: round2(r.iops * rate), mibps: round2(r.mibps * rate) };
}

/** `e` as a volume emulated at `scale` should deliver it; the model's own figures without a scale. */
export function scaleEntitlement<E extends ModelEntitlement>(e: E, scale: VolbenchEmulation | undefined): E {
  if (!scale) return e;
  const { rate, time } = scale;
  const b = e.burst;
  const ib = e.instance_burst;
  return {
    ...e,
    entitled: scaledRate(e.entitled, rate),
    entitled_merged: scaledRate(e.entitled_merged, rate),
    ...(ib ? { instance_burst: { ...scaledRate(ib, rate), after_s: round2(ib.after_s * time) } } : {}),
    ...(b ? {
      burst: {
        ...b, level: round2(b.level * rate), baseline: round2(b.baseline * rate), seconds_from_full: round2(b.seconds_from_full * time),
        seconds_at_job_rate: b.seconds_at_job_rate === null ? null : round2(b.seconds_at_job_rate * time),
      },
    } : {}),
  };
}

/** `rehearsal on one host: rates ×0.25, buckets ×0.1; entitlements scaled to match`: what every report says first. */
export function emulationBanner(scale: VolbenchEmulation): string {
  return `rehearsal on one host: rates ×${scale.rate}, buckets ×${scale.time}; entitlements scaled to match`;
}
