export { CATALOG_FILES, instanceType, loadCatalog, loadInstances, parseCatalog, volumeType } from './catalog.js';
export { checkVolume, parseVolumeSpec, provisionedIops, provisionedThroughput } from './volume.js';
export type { VolumeSpec } from './volume.js';
export { priceVolume } from './price.js';
export type { VolumePrice } from './price.js';
export { entitlement } from './entitlement.js';
export type { BoundBy, Entitlement, EntitlementQuery } from './entitlement.js';
export type { InstanceTypeInfo, ProviderCatalogData, VolumeTypeInfo } from './schema.js';
