/** Active swap areas from /proc/swaps: a swap device or file is in use even though nothing mounts it. */
import { readFileSync } from 'node:fs';
import { unescapeMountField } from './mountinfo.js';
import { isMissing } from './sysfs.js';

export interface SwapEntry {
  path: string;
  /** "partition" for a block device (whole or not), "file" for a swap file. */
  type: string;
}

export const SWAPS_PATH = '/proc/swaps';

export function readSwaps(path: string = SWAPS_PATH): SwapEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  return parseSwaps(text);
}

/** One header line, then "Filename Type Size Used Priority"; names escape blanks like mountinfo. */
export function parseSwaps(text: string): SwapEntry[] {
  const entries: SwapEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [name, type] = line.trim().split(/\s+/);
    if (name === undefined || name === '' || type === undefined) continue;
    entries.push({ path: unescapeMountField(name), type });
  }
  return entries;
}
