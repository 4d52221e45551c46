/**
 * What a fleet costs while it runs: EC2 on-demand Linux prices of the instance types fleets use
 * (here, until the catalog has instances), and EBS prices per month from the catalog, each with
 * its source and date. A fleet's estimate prorates them by
 * the hours it runs (EC2 and EBS both bill by the second, with a 60 s minimum).
 *
 * The instance figures are us-east-1's; another region's estimate uses them and says so.
 */
import { priceRegions, priceVolume } from '../cloud/index.js';
import type { FleetVolume } from './volumes.js';
import { ownValue } from '../own-key.js';

export interface DatedPrice {
  usd: number;
  source: string;
  as_of: string;
  /** Set when the price is another region's, used for want of this one's. */
  region_used?: string;
}

const EC2_SOURCE = 'https://aws.amazon.com/ec2/pricing/on-demand/';
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
  const usd = ownValue(INSTANCE_HOURLY, type);
  return usd === undefined ? undefined : dated(usd, region, EC2_SOURCE);
}

/** The volume's monthly price from the catalog (src/cloud): this region's, else us-east-1's. */
export function volumeMonthly(v: FleetVolume, region: string): DatedPrice | undefined {
  if (v.type === 'instance-store') return { usd: 0, source: EC2_SOURCE, as_of: AS_OF };
  const spec = { type: v.type, sizeGiB: v.sizeGiB, iops: v.iops, throughputMiBps: v.throughputMiBps };
  const known = priceRegions(v.type);
  const priced = known.includes(region) ? region : PRICED_REGION;
  if (!known.includes(priced)) return undefined;
  const p = priceVolume(spec, priced);
  return { usd: p.total, source: p.source, as_of: p.as_of, ...(priced === region ? {} : { region_used: priced }) };
}

export const HOURS_PER_MONTH = 730;
