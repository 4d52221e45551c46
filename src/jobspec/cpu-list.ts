/**
 * `cpus_allowed=0-3,6`: the CPUs a job's threads may run on, as fio writes them (a comma
 * separated list of CPU numbers and inclusive ranges).
 */
import { invalidValue } from './fail.js';

/** The highest CPU number accepted: the kernel's cpu_set_t holds 1,024 (CPU_SETSIZE). */
export const CPU_MAX = 1023;
/** Text longer than this is refused before it is read (every CPU listed once is under 5,000). */
const TEXT_MAX = 8192;

export const CPU_LIST_ACCEPTED = `CPU numbers from 0 to ${CPU_MAX} and ranges of them separated by commas, e.g. 0-3,6`;

/** Sorted, each CPU once. */
export function parseCpuList(text: string, field: string): number[] {
  if (text.length > TEXT_MAX) throw invalidValue(field, `the list is ${text.length} characters long, more than ${TEXT_MAX}`, CPU_LIST_ACCEPTED);
  // One byte per CPU, ranges marked by fill: work bounded by the text's length and CPU_MAX.
  const chosen = new Uint8Array(CPU_MAX + 1);
  for (const part of text.split(',')) {
    const m = /^\s*(\d{1,4})\s*(?:-\s*(\d{1,4})\s*)?$/.exec(part);
    if (!m) throw invalidValue(field, `'${part.trim()}' is not a CPU number or a range of them`, CPU_LIST_ACCEPTED);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (const n of [from, to]) {
      if (n > CPU_MAX) throw invalidValue(field, `CPU ${n} is above the highest accepted, ${CPU_MAX}`, CPU_LIST_ACCEPTED);
    }
    if (to < from) throw invalidValue(field, `'${part.trim()}' is a range that ends before it starts`, CPU_LIST_ACCEPTED);
    chosen.fill(1, from, to + 1);
  }
  const cpus: number[] = [];
  chosen.forEach((on, n) => {
    if (on) cpus.push(n);
  });
  return cpus;
}

/** The shortest text that parses back to `cpus` (ranges for runs of three or more). */
export function formatCpuList(cpus: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cpus.length;) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    if (j - i >= 2) parts.push(`${cpus[i]}-${cpus[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(cpus[k]));
    i = j + 1;
  }
  return parts.join(',');
}
