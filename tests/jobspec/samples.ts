/** Reading the fio 3.33 samples under tests/fixtures/fio/reference (copies of fio-reference). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/fio/reference/', import.meta.url));

export function specFixture(name: string): string {
  return readFileSync(FIXTURES + name, 'utf8');
}

export function specFixturePath(name: string): string {
  return FIXTURES + name;
}

interface FioJsonEcho {
  'global options'?: Record<string, string>;
  jobs: Array<{ jobname: string; 'job options': Record<string, string> }>;
}

/** The first JSON document of a sample (some start with fio's startup lines). */
export function sampleJson(name: string): FioJsonEcho {
  const text = specFixture(name);
  const start = text.indexOf('{\n');
  const end = text.indexOf('\n}\n', start) + 3;
  return JSON.parse(text.slice(start, end)) as FioJsonEcho;
}

/**
 * The arguments of the fio command in run_samples.sh that wrote `output`, split as the shell
 * would for these lines (plain words and "double quoted" words).
 */
export function sampleCommand(output: string): string[] {
  const line = specFixture('run_samples.sh').split('\n').find((l) => l.startsWith('fio ') && l.includes(output));
  if (!line) throw new Error(`no command for ${output}`);
  const words = line.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
  return words.slice(1).map((w) => w.replace(/"/g, ''));
}
