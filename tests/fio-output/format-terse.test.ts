/**
 * formatTerse against fio 3.33's own terse v3 lines: each fixture holds what fio printed with
 * --output-format=terse,json (the terse lines first, then the JSON document of the same run),
 * and the lines volbench makes from that document must be fio's, byte for byte.
 */
import { describe, expect, it } from 'vitest';

import { formatTerse } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';
import { fixtureText, jsonDocuments, parseResult } from './samples.js';

requires();

const TERSE_SAMPLES = [
  // psync randread on the disk: no slat, the disk's fields at the end
  't1-randread-psync.terse+json.txt',
  // libaio randrw numjobs=2 under group_reporting, a description with a ';' in it
  't2-randrw-nj2-group-desc.terse+json.txt',
  // unified_rw_reporting=both (mixed after write), lat percentiles, a list of three
  't3-randrw-both-lat_percentiles.terse+json.txt',
  // unified_rw_reporting=mixed (the mixed figures alone), clat_percentiles=0 (twenty 0%=0)
  't4-randrw-mixed-no-percentiles.terse+json.txt',
];

describe('formatTerse reproduces fio 3.33 terse v3', () => {
  it.each(TERSE_SAMPLES)('%s', (file) => {
    const text = fixtureText(file);
    const [json] = jsonDocuments(text);
    expect(formatTerse(parseResult(json))).toBe(text.slice(0, text.indexOf(json)));
  });
});
