/**
 * Asking before something that cannot be undone. With no terminal on stdin there is nobody to
 * ask: the caller learns so (undefined) at once, and nothing ever waits on a pipe or /dev/null.
 */
import { createInterface } from 'node:readline/promises';

import type { CommandIo } from './io.js';

export async function confirm(question: string, io: CommandIo, input: NodeJS.ReadStream = process.stdin): Promise<boolean | undefined> {
  if (!input.isTTY) return undefined;
  const rl = createInterface({ input, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
