import type { Entitlement, VolumeSpec } from '../../src/cloud/index.js';
import type { Scale, ThrottleSpec } from './throttle-model.mjs';

export function specFromCatalog(volume: VolumeSpec | string, instance?: string): ThrottleSpec;
export function scaledEntitlement(e: Entitlement, scale: Scale): Entitlement;
