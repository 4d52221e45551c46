import type { Entitlement, VolumeSpec } from '../../src/cloud/index.js';
import type { Scale, ThrottleSpec } from './throttle-model.mjs';

export function specFromCatalog(volume: VolumeSpec | string, instance?: string): ThrottleSpec;
export function scaledEntitlement(e: Entitlement, scale: Scale): Entitlement;
/** The model's entitlement (and so its bound_by) for one test: `bs` bytes in mode `rw`, a full bucket. */
export function modelEntitlement(volume: VolumeSpec, instance: string | undefined, bs: number, rw: string): Entitlement;
