/**
 * The spec stage: what a user asked for, from fio job files, fio command lines or JSON, parsed
 * into per-job options with fio's names, defaults and units. It reads no file but the job files
 * a command line names (and /proc/self/smaps when a job file uses $pagesize).
 */
export { parseJobFile, parseJobFileSections, stripComment } from './jobfile.js';
export { parseFioArgs, parseOutputFormats } from './args.js';
export { printJobFile } from './print.js';
export type { PrintableSpec } from './print.js';
export type { FioArgs, FioArgsOptions, FioOutputFormat } from './args.js';
export type * from './types.js';
export { parseSpec } from './resolve.js';
export { checkSpecBounds } from './bounds.js';
export type { SpecBounds } from './bounds.js';
export { jobSpecSchema, optionsSchema, optionValueSchema } from './schema.js';
export {
  parseSize, parseSizeOrPercent, parseInteger, parseTimeNs, parseBool, parseRandseed, parseDecimal,
} from './units.js';
export type { KbBase, UnitContext, TimeUnit } from './units.js';
export { parsePerDirection, splitDirections, parseBsSplit } from './per-direction.js';
export { parsePercentileList, DEFAULT_PERCENTILES } from './percentile-list.js';
export { parseRandomDistribution } from './random-distribution.js';
export { SUPPORTED_OPTIONS } from './options.js';
export { findOption, SUPPORTED_NAMES } from './option-lookup.js';
export type { OptionDef } from './option-def.js';
export { FIO_JOB_OPTION_NAMES, FIO_ENGINE_OPTION_NAMES } from './fio-option-names.js';
