#!/usr/bin/env node
// The jobs scripts/valgrind-check.mjs runs under memcheck, through the library (dist/) as a
// user would: every engine reading, writing and verifying a randrw mix, the log files, a run
// cancelled mid-I/O, a job that fails in the engine (verify on a file with no verify headers)
// and a spec refused at a target the engine's probe cannot open. Small files on /dev/shm keep
// each job well under a second even at valgrind's pace.
//
// One line of JSON per case on stdout ({case, ok, ms, note}); the exit status is 0 only when
// every case gave the result it must. A case's result is checked so a job that silently did
// nothing cannot pass for a clean one.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { availableEngines, runJobs, VolbenchError } from '../../dist/index.js';

const EILSEQ = 84;
const scratch = mkdtempSync(join('/dev/shm', `volbench-valgrind-${process.pid}-`));
const file = (name) => join(scratch, name);

const engines = availableEngines();
const cases = [];

function expect(cond, what) {
  if (!cond) throw new Error(what);
}

/** The one job of `result`, which must have ended without an error and moved `bytes` (read + write). */
function cleanJob(result, bytes) {
  expect(result.jobs.length === 1, `${result.jobs.length} jobs in the result`);
  const job = result.jobs[0];
  expect(job.error === 0, `error ${job.error}: ${result.volbench.jobs[0].error_message}`);
  const moved = job.read.io_bytes + job.write.io_bytes;
  expect(bytes === undefined ? moved > 0 : moved === bytes, `moved ${moved} bytes`);
  return job;
}

for (const engine of ['psync', 'libaio', 'io_uring', 'null']) {
  if (!engines.includes(engine)) {
    cases.push({ name: `${engine}: every job`, skip: `the ${engine} engine cannot be set up here (under valgrind its setup syscall may be refused)` });
    continue;
  }
  const base = { ioengine: engine, size: '1m', bs: '4k', iodepth: 8 };
  const target = (name) => (engine === 'null' ? {} : { filename: file(`${engine}-${name}.dat`) });
  cases.push({
    name: `${engine}: read`,
    run: async () => cleanJob(await runJobs({ jobs: [{ name: 'read', rw: 'read', ...base, ...target('read') }] }), 1 << 20),
  });
  cases.push({
    name: `${engine}: write`,
    run: async () => cleanJob(await runJobs({ jobs: [{ name: 'write', rw: 'write', ...base, ...target('write') }] }), 1 << 20),
  });
  // The null engine stores nothing, so there is nothing to verify on it.
  const verify = engine === 'null' ? {} : { verify: 'crc32c' };
  cases.push({
    name: `${engine}: randrw${engine === 'null' ? '' : ' with verify=crc32c'}`,
    run: async () => {
      const job = cleanJob(await runJobs({ jobs: [{ name: 'randrw', rw: 'randrw', rwmixread: 50, ...base, ...verify, ...target('randrw') }] }));
      expect(job.write.total_ios > 0 && job.read.total_ios > 0, 'randrw did not both read and write');
    },
  });
}

cases.push({
  name: 'psync: randwrite with bw, iops and lat logs',
  run: async () => {
    const prefix = file('logged');
    cleanJob(await runJobs({
      jobs: [{
        name: 'logged', rw: 'randwrite', size: '256k', bs: '4k', filename: file('logged.dat'),
        write_bw_log: prefix, write_iops_log: prefix, write_lat_log: prefix, log_offset: 1,
      }],
    }), 256 << 10);
    for (const kind of ['bw', 'iops', 'lat', 'clat', 'slat']) {
      const lines = readFileSync(`${prefix}_${kind}.1.log`, 'utf8').trim().split('\n');
      expect(lines.length === 64, `${kind} log has ${lines.length} lines, not one per I/O`);
    }
  },
});

cases.push({
  name: 'libaio: numjobs=2 randread, group_reporting',
  skip: engines.includes('libaio') ? undefined : 'the libaio engine cannot be set up here',
  run: async () => {
    const result = await runJobs({
      jobs: [{ name: 'two', rw: 'randread', size: '512k', bs: '4k', iodepth: 4, ioengine: 'libaio', numjobs: 2, group_reporting: 1, filename: file('two.dat') }],
    });
    cleanJob(result, 1 << 20);
  },
});

cases.push({
  name: 'psync: a time_based run cancelled mid-I/O',
  run: async () => {
    // The layout's file appearing says the engine has started; the abort then lands in its
    // loop, not in planning.
    const path = file('cancelled.dat');
    const controller = new AbortController();
    const run = runJobs({ jobs: [{ name: 'cancelled', rw: 'randread', size: '1m', bs: '4k', filename: path, time_based: 1, runtime: '30s' }] }, { signal: controller.signal });
    const started = Date.now();
    while (!existsSync(path) && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const result = await run;
    expect(result.volbench.jobs[0].cancelled === true, 'the job is not marked cancelled');
    expect(result.jobs[0].read.io_bytes > 0, 'the cancelled job read nothing before the abort');
  },
});

cases.push({
  name: 'psync: verify_only on a file with no verify headers fails with EILSEQ',
  run: async () => {
    const path = file('unverified.dat');
    writeFileSync(path, Buffer.alloc(256 << 10, 0x5a));
    const result = await runJobs({ jobs: [{ name: 'unverified', rw: 'read', size: '256k', bs: '4k', filename: path, verify: 'crc32c', verify_only: 1 }] });
    expect(result.jobs[0].error === EILSEQ, `error ${result.jobs[0].error}, not EILSEQ`);
  },
});

cases.push({
  name: 'a filename in a directory that does not exist is refused',
  run: async () => {
    try {
      await runJobs({ jobs: [{ name: 'missing', rw: 'read', size: '1m', filename: file('missing/f.dat') }] });
    } catch (err) {
      expect(err instanceof VolbenchError && err.code === 'ETARGET', `refused with ${err}`);
      return;
    }
    throw new Error('the run was not refused');
  },
});

let failed = 0;
try {
  for (const c of cases) {
    if (c.skip) {
      console.log(JSON.stringify({ case: c.name, ok: true, skipped: c.skip }));
      continue;
    }
    const started = Date.now();
    try {
      await c.run();
      console.log(JSON.stringify({ case: c.name, ok: true, ms: Date.now() - started }));
    } catch (err) {
      failed++;
      console.log(JSON.stringify({ case: c.name, ok: false, ms: Date.now() - started, note: String(err?.message ?? err) }));
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = failed ? 2 : 0;
