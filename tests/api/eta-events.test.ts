/**
 * The ETA and the layout in a run's event stream, as the web page shows them.
 *
 * Broke: the stream said 176 s for a 40 s job on a new file (the layout counted as run time) and
 * nothing at all while the file was laid out. Expected: progress events during the layout name
 * the file with its bytes done, total and rate; the first ETA at 10 % of the run or more is
 * within 2 s of the time actually left (until the final event).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startServer, type TestServer } from './helpers/server.js';
import { readEvents } from './helpers/sse.js';
import { ETA_JOB, ETA_TOLERANCE_MS, etaFigures, firstAt, type EtaSample } from '../helpers/eta.js';
import { artifactsDir } from '../browser/browser.js';
import { requires } from '../helpers/requires.js';

requires('tmpfs', 'serial');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

describe('the event stream of a time_based run on a new file', () => {
  it('shows the layout, and an ETA at 10 % within 2 s of the time left', async () => {
    const spec = {
      global: { size: ETA_JOB.size, direct: 1, unlink: 1 },
      jobs: [{ name: 'eta', rw: 'randread', bs: '4k', iodepth: 8, runtime: `${ETA_JOB.runtimeS}s`, time_based: 1 }],
    };
    const submitted = await server.client.submit(spec);
    expect(submitted.status, submitted.text).toBe(202);
    const stream = await readEvents(`${server.url}/v1/runs/${submitted.body.id}/events`, { authorization: `Bearer ${server.token}` }, {
      stamp: true, timeoutMs: 60_000 + ETA_JOB.runtimeS * 2000,
    });
    const last = stream.events[stream.events.length - 1];
    expect(last.event).toBe('finished');
    const progress = stream.events.filter((e) => e.event === 'progress');
    const samples: EtaSample[] = progress.map((e) => ({ at: e.at!, fraction: e.data.fraction, etaMs: e.data.eta_ms }));
    const first = firstAt(samples, 0.1);
    expect(first, JSON.stringify(samples)).toBeDefined();
    expect(Math.abs(first!.etaMs! - (last.at! - first!.at))).toBeLessThanOrEqual(ETA_TOLERANCE_MS);
    // Each layout event: the file, bytes done within its total, a rate once it has written.
    const layouts = progress.filter((e) => e.data.layout).map((e) => e.data.layout);
    for (const l of layouts) {
      expect(l.path).toMatch(/\/eta\.0\.0$/);
      expect(l.file).toBe(1);
      expect(l.done_bytes).toBeLessThanOrEqual(l.total_bytes);
      if (l.done_bytes > 0) expect(l.bytes_per_sec).toBeGreaterThan(0);
    }
    // A layout long enough to be seen (the engine reports once a second) was reported while it ran.
    // How long it took: until the first report of a running job, less the run time that report
    // counts (a report's IOPS may still be 0 a second into the run, so they do not say when it began).
    const running = progress.find((e) => e.data.fraction > 0);
    const layoutMs = running ? running.at! - stream.events[1].at! - running.data.fraction * ETA_JOB.runtimeS * 1000 : 0;
    if (layoutMs > 1500) expect(layouts.length).toBeGreaterThan(0);
    writeFileSync(`${artifactsDir()}/eta-events.json`, `${JSON.stringify({ job: ETA_JOB, layoutEvents: layouts.length, figures: etaFigures(samples, last.at!) }, null, 2)}\n`);
  });
});
