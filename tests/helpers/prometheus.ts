/**
 * Prometheus's text exposition format read by the Prometheus project's own parser (the official
 * Python client, prometheus_client.parser), so the service's /v1/metrics is judged by what a
 * scraper understands, not by a reading of our own. The parser raises on a line the format does
 * not allow; that comes back as a thrown Error with its message.
 */
import { spawnSync } from 'node:child_process';

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromFamily {
  /** The family's name as the parser gives it (a counter's without its `_total`). */
  name: string;
  type: string;
  help: string;
  samples: PromSample[];
}

const READ = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "help": f.documentation, "samples": [
        {"name": s.name, "labels": s.labels, "value": repr(s.value)} for s in f.samples]})
print(json.dumps(out))
`;

export function parseExposition(text: string): PromFamily[] {
  const run = spawnSync('python3', ['-c', READ], { input: text, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`prometheus_client refused the text: ${run.stderr.trim().split('\n').pop()}`);
  const families = JSON.parse(run.stdout) as (Omit<PromFamily, 'samples'> & { samples: (Omit<PromSample, 'value'> & { value: string })[] })[];
  return families.map((f) => ({ ...f, samples: f.samples.map((s) => ({ ...s, value: s.value === 'inf' ? Infinity : Number(s.value) })) }));
}
