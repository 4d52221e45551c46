/**
 * Whether a volume and an instance type go together: instance store needs an instance type
 * that has one and is at most its device; an EC2 instance bounds only AWS volumes. Every
 * refusal is EVOLUME_PLACEMENT naming the instance's field (or the size's).
 */
import { VolbenchError } from '../errors.js';
import { instanceType, loadInstances, volumeType } from './catalog.js';
import type { InstanceTypeInfo } from './schema.js';
import type { VolumeSpec } from './volume-limits.js';

function placementError(err: unknown, field: string): unknown {
  if (!(err instanceof VolbenchError)) return err;
  return new VolbenchError('EVOLUME_PLACEMENT', err.message, { field, ...(err.accepted ? { accepted: err.accepted } : {}) });
}

/** An instance type of the catalog, or EVOLUME_PLACEMENT naming `field` and the closest known one. */
function instanceFor(instance: string, field: string): InstanceTypeInfo {
  try {
    return instanceType(instance);
  } catch (err) {
    throw placementError(err, field);
  }
}

/** The instance store of an instance type, or an error naming the field and the types that have one. */
export function instanceStoreOf(instance: string | undefined, field: string): NonNullable<InstanceTypeInfo['instance_store']> & { type: string } {
  const withStore = loadInstances().filter((i) => i.instance_store).map((i) => i.type);
  const families = [...new Set(withStore.map((i) => i.split('.')[0]))].join(', ');
  if (instance === undefined) {
    throw new VolbenchError('EVOLUME_PLACEMENT', `instance-store: its size, IOPS and throughput are the instance type's: say which instance type (${field})`, {
      field, accepted: `an instance type with instance store: ${families}`,
    });
  }
  const it = instanceFor(instance, field);
  if (!it.instance_store) {
    throw new VolbenchError('EVOLUME_PLACEMENT', `${instance} has no instance store (in the catalog: ${families})`, { field, accepted: withStore.join(', ') });
  }
  return { ...it.instance_store, type: it.type };
}

/** GB (10^9 bytes, as AWS states instance store) in whole GiB, rounded down. */
export const gbToGiB = (gb: number): number => Math.floor((gb * 1e9) / 1024 ** 3);

/**
 * Refuses a volume and an instance type that do not go together, naming `field` (the instance's
 * flag or query field) or `sizeField`: instance store without an instance that has one, or
 * larger than its device; an EC2 instance type with another provider's volume.
 */
export function checkPlacement(spec: VolumeSpec, instance: string | undefined, field = 'instance', sizeField = 'volume.size'): void {
  const t = volumeType(spec.type);
  if (t.from_instance) {
    const store = instanceStoreOf(instance, field);
    const device = gbToGiB(store.gb_per_device);
    if (spec.sizeGiB > device) {
      throw new VolbenchError('EVOLUME_PLACEMENT', `instance-store on ${store.type} is ${store.devices} device${store.devices > 1 ? 's' : ''} of ${store.gb_per_device} GB (${device} GiB), not ${spec.sizeGiB} GiB (${store.source})`, {
        field: sizeField, accepted: `at most ${device} GiB, or no size`,
      });
    }
    return;
  }
  if (instance !== undefined && t.provider !== 'aws') {
    throw new VolbenchError('EVOLUME_PLACEMENT', `${instance} is an EC2 instance type and ${t.type} a ${t.provider} volume: the catalog bounds only AWS volumes by an instance`, {
      field, accepted: `no instance type for ${t.provider} volumes`,
    });
  }
  if (instance !== undefined) instanceFor(instance, field);
}
