export { CATALOG_FILES, awsCatalogDates, catalogProviders, checkProvider, instancePlatforms, instanceType, loadCatalog, loadInstancePrices, loadInstances, parseCatalog, volumeType } from './catalog.js';
export type { CatalogDates, CatalogVolumeType } from './catalog.js';
export {
  catalogTypeOf, checkPlacement, describeSpec, gbToGiB, instanceStoreOf, isVolume, provisionedIops, provisionedThroughput, sizeText, tierFor,
  Volume, volumeFields, volumeFromJson, volumeOf,
} from './volume.js';
export type { VolumeFields, VolumeInput, VolumeJson, VolumeSpec } from './volume.js';
export { parseVolume, parseVolumes, volumeFromSettingsText } from './volume-text.js';
export type { LabelledVolume, VolumeTextOptions } from './volume-text.js';
export { priceVolume } from './volume-price.js';
export type { VolumePrice } from './volume-price.js';
export {
  cents, defaultPriceRegion, fleetUsd, fleetUsdPerHour, HOURS_PER_MONTH, instanceHourly, pricedRegion, PUBLIC_IPV4_HOURLY, usdPer1000Iops, usdPerMibps, volumeMonthly,
} from './cost.js';
export type { DatedPrice, MemberOverhead, PriceOptions } from './cost.js';
export { activePrices, ageInDays, parsePricesFile, priceRegions, PricesFile, readPricesFile, regionPrice, staleWarning, STALE_AFTER_DAYS, usePrices } from './price-source.js';
export type { PricesFileData } from './price-source.js';
export { fetchPriceList, parsePriceList, pricesFileWith, PRICE_LIST_SOURCE, today } from './aws-price-list.js';
export type { ParsedPrices, RefreshOptions } from './aws-price-list.js';
export { countedPerIo, directionOf, entitlement, SEQUENTIAL_RW } from './entitlement.js';
export type { Direction, EntitledRate, Entitlement, EntitlementQuery, Limit } from './entitlement.js';
export type { BoundBy, BoundBySource } from '../fio-output/entitlement-section.js';
export { bindingOf, LATENCY_NEAR, MEASURED_BINDS, modelBinding, SHORT_OF_ENTITLED } from './binding.js';
export type { Binding, BindingFacts } from './binding.js';
export { emulationBanner, scaleEntitlement } from './emulation.js';
export type { VolbenchEmulation } from './emulation.js';
export { jobShape, mergedOptions } from './job-shape.js';
export type { DirMeasure, JobShape } from './job-shape.js';
export { jobEntitlement } from './job-entitlement.js';
export type { JobFacts } from './job-entitlement.js';
export type { Confidence, InstancePlatformInfo, InstanceTypeInfo, ProviderCatalogData, VolumeTypeInfo } from './schema.js';
export { cloudFacts } from './annotate.js';
export type { CloudContext } from './annotate.js';
export { awsCall } from './aws-call.js';
export { awsClient, awsClientConfig, awsRegion, AWS_MAX_ATTEMPTS, AWS_REGION_NAME, checkAwsRegion, customEndpoint } from './aws-clients.js';
export type { AwsClientOptions } from './aws-clients.js';
export { checkAgainstAws, describe, describeVolume, forgetInstanceIdentity, imdsDisabled, imdsEndpoint, instanceIdentity, knownInstance, recogniseVolume, specOf } from './identity.js';
export type { AwsVolume, ImdsOptions, InstanceIdentity, Lookup, RecognisedVolume, RecogniseOptions } from './identity.js';
export { describeInstanceTypes, instanceCatalogFrom, refreshSource, type DescribedType, type InstanceRefresh } from './instance-refresh.js';
