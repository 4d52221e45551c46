/** Reading the fio 3.33 samples under tests/fixtures/fio (see its README for how they were made). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FioJson } from '../../src/fio-output/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/fio/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(FIXTURES + name, 'utf8');
}

/** The JSON documents of a file, each as fio printed it ("{" … "}\n"), startup lines skipped. */
export function jsonDocuments(text: string): string[] {
  const docs: string[] = [];
  let from = text.indexOf('{\n');
  while (from >= 0) {
    const end = text.indexOf('\n}\n', from) + 3;
    docs.push(text.slice(from, end));
    from = text.indexOf('{\n', end);
    if (from >= 0 && text.slice(end, from).trim() !== '') break;
  }
  return docs;
}

/** A `--output-format=json,normal` file: the JSON document and the normal report after it. */
export function splitJsonNormal(text: string): { json: string; normal: string } {
  const [json] = jsonDocuments(text);
  const end = text.indexOf(json) + json.length;
  // fio starts its normal buffer with a newline; the report itself follows it.
  return { json, normal: text.slice(end + 1) };
}

export function parseResult(json: string): FioJson {
  return JSON.parse(json) as FioJson;
}

/** The normal text with every job's pid replaced, since the JSON does not carry it. */
export function withPid(normal: string, pid: number): string {
  return normal.replace(/: pid=\d+:/g, `: pid=${pid}:`);
}
