/**
 * The volumes of a fleet, as the user lists them (the one grammar of src/cloud/volume-text.ts):
 *
 *   gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t:suite=aws-hdd,instance-store
 *
 * A fleet runs on EC2: each volume is one of the catalog's AWS types, and instance store is the
 * instance type's device, whole. `suite=` names the suite its member runs instead of the fleet's.
 */
import {
  instanceStoreOf, loadCatalog, parseVolumes, volumeOf, type LabelledVolume, type Volume, type VolumeSpec,
} from '../cloud/index.js';
import { VolbenchError } from '../errors.js';

/** Refuses a volume a fleet of `instanceType` cannot have, naming `where` (`--volumes[2]`). */
export function checkFleetVolume(volume: Volume, instanceType: string | undefined, where: string): void {
  if (volume.provider !== 'aws') {
    throw new VolbenchError('EVOLUME_PLACEMENT', `${where}: a fleet runs on EC2, and ${volume.type} is a ${volume.provider} volume`, {
      field: `${where}.type`, accepted: fleetVolumeTypes().join(', '),
    });
  }
  if (!volume.catalog.from_instance) return;
  if (volume.sizeGiB) {
    throw new VolbenchError('EVOLUME_PLACEMENT', `${where}: a fleet measures the instance's store device whole: give instance-store without a size`, {
      field: `${where}.size`, accepted: 'instance-store',
    });
  }
  if (instanceType !== undefined) instanceStoreOf(instanceType, '--instance');
}

/** A fleet's --volumes: the list, each checked for the fleet's instance type. */
export function fleetVolumes(text: string, instanceType: string | undefined, field = '--volumes'): LabelledVolume[] {
  const list = parseVolumes(text, { field, suite: true });
  list.forEach(({ volume }, i) => checkFleetVolume(volume, instanceType, `${field}[${i}]`));
  return list;
}

/** The volume types a fleet can have: the catalog's AWS types. */
export function fleetVolumeTypes(): string[] {
  return loadCatalog().filter((c) => c.provider === 'aws').flatMap((c) => c.types.map((t) => t.type));
}

/** A fleet member's volume as a plan and a state file keep it: its label and its figures. */
export interface FleetVolume extends VolumeSpec {
  label: string;
  /** The suite its member runs, when the list says one (`suite=`). */
  suite?: string;
}

/** A labelled volume as the plan keeps it. */
export function fleetVolume({ label, volume }: LabelledVolume): FleetVolume {
  return { label, ...volume.toJSON() };
}

/** A plan's volume made a Volume again (plans and state files keep figures). */
export function volumeOfMember(v: FleetVolume): Volume {
  const { label: _label, ...figures } = v;
  return volumeOf(figures, `volume ${v.label}`);
}
