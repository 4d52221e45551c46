/**
 * What `up` and `compare` check and gather before a fleet is made: the estimate against
 * --max-cost, who may reach the members (--allowed-cidr, by default this machine's public
 * address), the bundle for the instance type's architecture, and the fleet's life (--ttl).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { VolbenchError } from '../../errors.js';
import { bundleArch, instanceArchitecture, parseTtl, type FleetPlan, type UpOptions } from '../../fleet/index.js';
import { VERSION } from '../../version.js';
import { need, type FleetValues } from './flags.js';

/** The study's estimate within --max-cost (default $20), unless --yes. */
export function checkCost(plan: FleetPlan, values: FleetValues): void {
  if (values.yes) return;
  const max = values['max-cost'] === undefined ? 20 : Number(values['max-cost']);
  if (!Number.isFinite(max) || max < 0) throw new VolbenchError('EINVALID_ARGS', `fleet: --max-cost takes dollars, not '${values['max-cost']}'`, { field: '--max-cost', accepted: 'a number of USD, e.g. 20' });
  if (plan.estimatedUsd === undefined) {
    throw new VolbenchError('EINVALID_ARGS', 'fleet: the study\'s cost is unknown (no price for the instance type); pass --yes to go ahead', { field: '--yes', accepted: '--yes' });
  }
  if (plan.estimatedUsd > max) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: the study is estimated at $${plan.estimatedUsd.toFixed(2)}, above --max-cost $${max.toFixed(2)}; pass --yes to go ahead`, {
      field: '--max-cost', accepted: `a limit of at least $${plan.estimatedUsd.toFixed(2)}, or --yes`,
    });
  }
}

async function allowedCidr(values: FleetValues): Promise<string> {
  const given = values['allowed-cidr'];
  if (given) {
    if (!/^(\d{1,3}\.){3}\d{1,3}\/(3[0-2]|[12]?\d)$/.test(given)) throw new VolbenchError('EINVALID_ARGS', `fleet: '${given}' is not an IPv4 CIDR`, { field: '--allowed-cidr', accepted: 'e.g. 203.0.113.7/32' });
    return given;
  }
  try {
    const res = await fetch('https://checkip.amazonaws.com/', { signal: AbortSignal.timeout(3000) });
    const ip = (await res.text()).trim();
    if (/^(\d{1,3}\.){3}\d{1,3}$/.test(ip)) return `${ip}/32`;
  } catch {
    // fall through
  }
  throw new VolbenchError('EINVALID_ARGS', 'fleet: cannot tell this machine\'s public address; give --allowed-cidr', { field: '--allowed-cidr', accepted: 'e.g. 203.0.113.7/32' });
}

/** The bundle `npm run bundle -- --arch` wrote for this volbench, when there is one. */
function bundleFile(values: FleetValues, plan: FleetPlan): string {
  if (values.package) return resolve(values.package);
  const arch = bundleArch(instanceArchitecture(plan.instanceType));
  const file = fileURLToPath(new URL(`../../../bundles/volbench-${VERSION}-linux-${arch}.tar.gz`, import.meta.url));
  if (existsSync(file)) return file;
  throw new VolbenchError('EINVALID_ARGS', `fleet: the members need the ${arch} bundle: build it with npm run bundle -- --arch ${arch}, or give --package FILE`, {
    field: '--package', accepted: `volbench-VERSION-linux-${arch}.tar.gz`,
  });
}

/** An autonomous study's settings from the flags, the cost checked first: its members need no inbound path, so no --allowed-cidr is looked up. */
export function studySettings(values: FleetValues, plan: FleetPlan): { bucket: string; bundleFile: string; subnetId?: string; instanceProfile?: string; ttlSec?: number; allowedCidr?: string } {
  checkCost(plan, values);
  const bucket = need(values, 'bucket', 'an S3 bucket for results, the bundle and the fleet\'s state');
  const given = values['allowed-cidr'];
  if (given !== undefined && !/^(\d{1,3}\.){3}\d{1,3}\/(3[0-2]|[12]?\d)$/.test(given)) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: '${given}' is not an IPv4 CIDR`, { field: '--allowed-cidr', accepted: 'e.g. 203.0.113.7/32' });
  }
  return {
    bucket, bundleFile: bundleFile(values, plan), subnetId: values.subnet, instanceProfile: values['instance-profile'],
    ttlSec: values.ttl ? parseTtl(values.ttl) : undefined, ...(given ? { allowedCidr: given } : {}),
  };
}

/** The fleet's settings from the flags, the cost checked first: what fleetUp takes besides its clients, signal and listener. */
export async function upSettings(values: FleetValues, plan: FleetPlan): Promise<Omit<UpOptions, 'clients' | 'stateDir' | 'signal' | 'onEvent'>> {
  checkCost(plan, values);
  const bucket = need(values, 'bucket', 'an S3 bucket for results, the bundle and the fleet\'s state');
  return {
    bucket, allowedCidr: await allowedCidr(values), bundleFile: bundleFile(values, plan), subnetId: values.subnet,
    instanceProfile: values['instance-profile'], ttlSec: values.ttl ? parseTtl(values.ttl) : undefined,
  };
}
