/** What the analyses add under "volbench" in fio's JSON, as the service documents it: the library's schemas, open. */
import type { z } from 'zod';

import {
  volbenchBurstSchema as burst, volbenchRotationalSchema as rotational, volbenchSweepSchema as sweep, volbenchUniformitySchema as uniformity,
} from '../fio-output/analysis-sections.js';
import { lenient } from './documented.js';

export const ANALYSIS_NAMES = new Map<z.ZodType, string>([
  [sweep, 'VolbenchSweep'], [uniformity, 'VolbenchUniformity'], [rotational, 'VolbenchRotational'], [burst, 'VolbenchBurst'],
]);

export const volbenchSweepSchema = lenient(sweep, ANALYSIS_NAMES);
export const volbenchUniformitySchema = lenient(uniformity, ANALYSIS_NAMES);
export const volbenchRotationalSchema = lenient(rotational, ANALYSIS_NAMES);
export const volbenchBurstSchema = lenient(burst, ANALYSIS_NAMES);
