/**
 * A job's entitlement as its result states it: the model's answer for the job's I/O size,
 * pattern and mix, what the job measured against it (on an emulated volume, against the scaled
 * figures it was held to), what bound it, and for a mix each direction's share.
 */
import type { VolbenchEbsStats, VolbenchEmulation } from '../fio-output/ebs-stats-section.js';
import type { DirectionShare, ModelEntitlement, VolbenchEntitlement } from '../fio-output/entitlement-section.js';
import { bindingOf } from './binding.js';
import { scaleEntitlement } from './emulation.js';
import { entitlement, type EntitlementQuery } from './entitlement.js';
import type { DirMeasure, JobShape } from './job-shape.js';
import type { Volume } from './volume.js';

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A direction of a mix held to the share of the job's entitlement it asks for: its share of the
 * I/Os (rwmixread) for IOPS, and of the bytes those I/Os move (each direction's I/O size) for
 * MiB/s. A direction that falls short of its share shows it, where the share it got would hide it.
 */
function directionShare(held: ModelEntitlement, ioShare: number, bytesShare: number, measured: DirMeasure | undefined): DirectionShare | undefined {
  if (ioShare <= 0) return undefined;
  const iops = held.entitled.iops * ioShare;
  return {
    share_of_ios: round3(ioShare), share_of_bytes: round3(bytesShare),
    entitled: { iops: round2(iops), mibps: round2(held.entitled.mibps * bytesShare) },
    measured_vs_entitled: round3(iops > 0 ? (measured?.iops ?? 0) / iops : 0),
  };
}

function directionShares(held: ModelEntitlement, job: JobShape): Pick<VolbenchEntitlement, 'read' | 'write'> {
  if (job.direction !== 'mixed') return {};
  const reads = job.rwmixread / 100;
  const readBytes = reads * (job.read?.bs ?? job.bs);
  const writeBytes = (1 - reads) * (job.write?.bs ?? job.bs);
  const total = readBytes + writeBytes;
  const read = directionShare(held, reads, total > 0 ? readBytes / total : 0, job.read);
  const write = directionShare(held, 1 - reads, total > 0 ? writeBytes / total : 0, job.write);
  return { ...(read ? { read } : {}), ...(write ? { write } : {}) };
}

export interface JobFacts {
  instance?: string;
  ebs?: VolbenchEbsStats;
  emulation?: VolbenchEmulation;
}

/** The job's entitlement on `volume`: the model's figures (AWS's, never scaled), and the job held against them as the volume was. */
export function jobEntitlement(volume: Volume, job: JobShape, facts: JobFacts = {}): VolbenchEntitlement {
  const q: EntitlementQuery = { bs: job.bs, sequential: job.sequential, direction: job.direction, rwmixread: job.rwmixread, instance: facts.instance };
  const model = entitlement(volume, q);
  const held = scaleEntitlement(model, facts.emulation);
  const emptyBucket = model.burst ? scaleEntitlement(entitlement(volume, { ...q, burstBalance: 0 }), facts.emulation).entitled : undefined;
  const binding = bindingOf({
    entitlement: held, job, ...(emptyBucket ? { emptyBucket } : {}),
    ...(volume.catalog.latency ? { unloadedUs: volume.catalog.latency.unloaded_us } : {}), ...(facts.ebs ? { ebs: facts.ebs } : {}),
  });
  return {
    ...model,
    bs: job.bs,
    measured_iops: job.measuredIops,
    measured_bw_bytes: job.measuredBwBytes,
    measured_vs_entitled: round3(held.entitled.iops > 0 ? job.measuredIops / held.entitled.iops : 0),
    ...binding,
    ...directionShares(held, job),
  };
}
