/**
 * fio 3.33's JSON document, as the service documents and checks it: the library's schema
 * (src/fio-output/fio-result.ts), open to keys it does not name, with its shared parts named.
 */
import { z } from 'zod';

import {
  fioDirStatsSchema, fioJobSchema, fioResultSchema as library, volbenchAssertionSchema, volbenchJobLoopsSchema, volbenchLoopDirSchema,
  volbenchSuiteInfoSchema,
} from '../fio-output/fio-result.js';
import { volbenchEbsStatsSchema, volbenchEmulationSchema } from '../fio-output/ebs-stats-section.js';
import { ANALYSIS_NAMES } from './analysis-result.js';
import { lenient } from './documented.js';

const NAMES = new Map<z.ZodType, string>([
  ...ANALYSIS_NAMES,
  [fioDirStatsSchema, 'FioDirectionStats'],
  [fioJobSchema, 'FioJob'],
  [volbenchLoopDirSchema, 'VolbenchLoopFigures'],
  [volbenchJobLoopsSchema, 'VolbenchJobLoops'],
  [volbenchSuiteInfoSchema, 'VolbenchSuite'],
  [volbenchAssertionSchema, 'AssertionOutcome'],
  [volbenchEbsStatsSchema, 'EbsStats'],
  [volbenchEmulationSchema, 'VolumeEmulation'],
  [library, 'FioResult'],
]);

export const fioResultSchema = lenient(library, NAMES);

/** One assertion's outcome, as fio's JSON and the run record both carry it. */
export const assertionOutcomeSchema = lenient(volbenchAssertionSchema, NAMES);
