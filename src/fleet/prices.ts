/**
 * What a fleet costs: moved to the one cost module (src/cloud/cost.ts), with instance prices in
 * catalog/aws-ec2-prices.json. These names stay for code written against them.
 */
import { volumeMonthly as monthly, type DatedPrice } from '../cloud/index.js';
import { volumeOfMember, type FleetVolume } from './volumes.js';

export { HOURS_PER_MONTH, instanceHourly } from '../cloud/index.js';
export type { DatedPrice } from '../cloud/index.js';

/**
 * The volume's monthly price from the catalog: this region's, else the provider's default region's.
 * @deprecated Use volumeMonthly(volume, region, { fallback: true }) from the cost module.
 */
export function volumeMonthly(v: FleetVolume, region: string): DatedPrice | undefined {
  return monthly(volumeOfMember(v), region, { fallback: true });
}
