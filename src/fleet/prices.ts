/**
 * What a fleet costs while it runs: EC2 on-demand Linux prices of the instance types fleets use,
 * and EBS prices per month, each with its source and date. A fleet's estimate prorates them by
 * the hours it runs (EC2 and EBS both bill by the second, with a 60 s minimum).
 *
 * The figures are us-east-1's; another region's estimate uses them and says so.
 */
import type { FleetVolume } from './volumes.js';

export interface DatedPrice {
  usd: number;
  source: string;
  as_of: string;
  /** Set when the price is another region's, used for want of this one's. */
  region_used?: string;
}

const EC2_SOURCE = 'https://aws.amazon.com/ec2/pricing/on-demand/';
const EBS_SOURCE = 'https://aws.amazon.com/ebs/pricing/';
const AS_OF = '2026-11-22';
const PRICED_REGION = 'us-east-1';

/** USD per hour, Linux on-demand, us-east-1. */
const INSTANCE_HOURLY: Record<string, number> = {
  't3.medium': 0.0416, 't3.large': 0.0832, 't3.xlarge': 0.1664,
  'm5.large': 0.096, 'm5.xlarge': 0.192, 'm5.2xlarge': 0.384,
  'm6i.large': 0.096, 'm6i.xlarge': 0.192, 'm6i.2xlarge': 0.384, 'm6i.4xlarge': 0.768,
  'm7i.large': 0.1008, 'm7i.xlarge': 0.2016, 'm7i.2xlarge': 0.4032,
  'm7g.large': 0.0816, 'm7g.xlarge': 0.1632, 'm7g.2xlarge': 0.3264,
  'c6i.large': 0.085, 'c6i.xlarge': 0.17, 'c6i.2xlarge': 0.34,
  'c7g.large': 0.0725, 'c7g.xlarge': 0.145, 'c7g.2xlarge': 0.29,
  'r6i.large': 0.126, 'r6i.xlarge': 0.252, 'r7i.large': 0.1323, 'r7i.xlarge': 0.2646,
  'i3.large': 0.156, 'i3.xlarge': 0.312, 'i4i.large': 0.172, 'i4i.xlarge': 0.343, 'i3en.large': 0.226,
};

function dated(usd: number, region: string, source: string): DatedPrice {
  return { usd, source, as_of: AS_OF, ...(region === PRICED_REGION ? {} : { region_used: PRICED_REGION }) };
}

export function instanceHourly(type: string, region: string): DatedPrice | undefined {
  const usd = INSTANCE_HOURLY[type];
  return usd === undefined ? undefined : dated(usd, region, EC2_SOURCE);
}

/** EBS, us-east-1, per month: storage per GB, provisioned IOPS and throughput above what is included. */
export function volumeMonthly(v: FleetVolume, region: string): DatedPrice | undefined {
  const gb = v.sizeGiB;
  let usd: number;
  switch (v.type) {
    case 'gp2': usd = gb * 0.1; break;
    case 'gp3':
      usd = gb * 0.08 + Math.max(0, (v.iops ?? 3000) - 3000) * 0.005 + Math.max(0, (v.throughputMiBps ?? 125) - 125) * 0.04;
      break;
    case 'io1': usd = gb * 0.125 + (v.iops ?? 0) * 0.065; break;
    case 'io2': {
      const iops = v.iops ?? 0;
      usd = gb * 0.125 + Math.min(iops, 32000) * 0.065 + Math.max(0, Math.min(iops, 64000) - 32000) * 0.0455 + Math.max(0, iops - 64000) * 0.03185;
      break;
    }
    case 'st1': usd = gb * 0.045; break;
    case 'sc1': usd = gb * 0.015; break;
    case 'standard': usd = gb * 0.05; break;
    case 'instance-store': usd = 0; break;
  }
  return dated(Math.round(usd * 100) / 100, region, EBS_SOURCE);
}

export const HOURS_PER_MONTH = 730;
