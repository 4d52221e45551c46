/**
 * The parsers behind the service must not hold the event loop, whatever a request holds. Before
 * this was pinned, a 900 KB assertion, a job file of `${${${...` or a 900,000-character option
 * name each took from seconds to minutes (the parsers were quadratic, or compared the input with
 * every option name), and a job file of unknown names between jobs ran the process out of memory.
 *
 * Expected: every input up to the service's body limit (1 MiB) is parsed or refused, with a
 * VolbenchError naming the field and what is accepted, within PARSE_BUDGET_MS (200 ms of CPU
 * time, the fastest of three runs) per call. Most take a few milliseconds; the old parsers took seconds.
 */
import { describe, expect, it } from 'vitest';

import { parseAssertion } from '../../src/gates/index.js';
import { parseFioArgs, parseJobFile, parseSpec } from '../../src/jobspec/index.js';
import { requires } from '../helpers/requires.js';
import { PARSE_BUDGET_MS, timed } from '../helpers/timing.js';

// Timed in the process's CPU time (tests/helpers/timing.ts), so in a process of its own, alone.
requires('serial');

const MiB = 1024 * 1024;
const K = 1024;

/** Repeats `unit` to just under `bytes`. */
function fill(unit: string, bytes = MiB - 64): string {
  return unit.repeat(Math.floor(bytes / unit.length));
}

const KNOWN_OPTIONS = [
  'rw=randrw', 'bs=4k,8k', 'iodepth=32', 'size=1g', 'runtime=10s', 'time_based', 'direct=1', 'ioengine=libaio',
  'numjobs=1', 'group_reporting', 'rwmixread=70', 'ba=4k', 'iodepth_batch=4', 'offset=0', 'thinktime=0',
  'invalidate=1', 'randrepeat=0', 'norandommap', 'fsync=0', 'end_fsync=0', 'loops=1', 'ramp_time=0',
  'startdelay=0', 'kb_base=1024', 'unlink=0',
];

const split64 = Array.from({ length: 64 }, (_, i) => `${(i + 1) * 512}/1`).join(':');

/** A case builds its input first, so that only the parse is timed. */
type Case = [name: string, prepare: () => () => unknown];

const assertion = (make: () => string) => () => { const text = make(); return () => parseAssertion(text); };
const jobFile = (make: () => string) => () => { const text = make(); return () => parseJobFile(text, {}); };
const spec = (make: () => unknown) => () => { const body = make(); return () => parseSpec(body); };
const specOfJobFile = (make: () => string) => () => { const text = make(); return () => parseSpec(parseJobFile(text, {})); };
const args = (make: () => string[]) => () => { const argv = make(); return () => parseFioArgs(argv); };
const specOfArgs = (make: () => string[]) => () => { const argv = make(); return () => parseSpec(parseFioArgs(argv).spec); };

const assertions: Case[] = [
  ['900 KB of blanks before the operator', assertion(() => `a${' '.repeat(900 * K)}>= 1`)],
  ['900 KB of blanks and no operator', assertion(() => `a${' '.repeat(900 * K)}b`)],
  ['900 KB of digits after the operator', assertion(() => `a.iops >= ${'1'.repeat(900 * K)} x y`)],
  ['1000 characters of blanks and no operator', assertion(() => `a${' '.repeat(998)}b`)],
  ['1000 characters of digits after the operator', assertion(() => `a.iops >= ${'1'.repeat(985)} x y`)],
];

const jobFiles: Case[] = [
  ['one line of 900 KB of ${', jobFile(() => `[a]\nfilename=${'${'.repeat(450 * K)}\n`)],
  ['1 MiB of lines of unclosed ${', jobFile(() => `[a]\n${fill(`filename=${'${'.repeat(4000)}\n`)}`)],
  ['1 MiB of ${} that name unset variables', jobFile(() => `[a]\n${fill('filename=${X}${X}${X}\n')}`)],
  ['one option name of 900 KB', jobFile(() => `[a]\n${'x'.repeat(900 * K)}=1\n`)],
  ['1 MiB of [x] sections', jobFile(() => fill('[x]\n'))],
  ['1 MiB of [global] sections', jobFile(() => `[a]\n${fill('[global]\n')}`)],
  ['1 MiB of a=b lines', jobFile(() => `[x]\n${fill('a=b\n')}`)],
  ['1 MiB of one option repeated', jobFile(() => `[x]\n${fill('bs=4k\n')}`)],
  ['1 MiB of jobs of 25 options', jobFile(() => fill(`[j]\n${KNOWN_OPTIONS.join('\n')}\n`))],
  ['1 MiB of keyword arithmetic 900 deep', jobFile(() => `[a]\n${fill(`numjobs=${'($ncpus+'.repeat(900)}1${')'.repeat(900)}\n`)}`)],
  ['1 MiB of unary minus', jobFile(() => `[a]\n${fill(`numjobs=$ncpus+${'-'.repeat(8000)}1\n`)}`)],
  // $pagesize read /proc/self/smaps and $ncpus listed the CPUs on every line: 5000 lines took 22 s.
  ['5000 lines of $pagesize and $ncpus', jobFile(() => `[a]\n${'bs=$pagesize\nnumjobs=$ncpus\n'.repeat(5000)}`)],
  ['1 MiB of comments', jobFile(() => `[a]\n${fill('; # ; #\n')}`)],
  ['1 MiB of blank lines', jobFile(() => `[a]\n${fill('\n')}`)],
  ['a header of 900 KB', jobFile(() => `[${'x'.repeat(900 * K)}]\n`)],
];

const specs: Case[] = [
  ['an option name of 900 KB', spec(() => ({ jobs: [{ name: 'a', ['iodepht'.repeat(130 * K)]: 1 }] }))],
  ['a bs of 900 KB of digits', spec(() => ({ jobs: [{ name: 'a', bs: `${'1'.repeat(900 * K)}x` }] }))],
  ['a bssplit of 900 KB', spec(() => ({ jobs: [{ name: 'a', bssplit: fill('4k/1:', 900 * K) }] }))],
  ['a percentile_list of 900 KB of digits', spec(() => ({ jobs: [{ name: 'a', percentile_list: `${'1'.repeat(900 * K)}!` }] }))],
  ['a random_distribution of 900 KB', spec(() => ({ jobs: [{ name: 'a', random_distribution: `zipf${':'.repeat(900 * K)}` }] }))],
  ['a filename of 900 KB of \\:', spec(() => ({ jobs: [{ name: 'a', filename: '\\:'.repeat(450 * K) }] }))],
  ['values of up to 4096 characters, the most a value may have', spec(() => ({
    global: {
      percentile_list: Array.from({ length: 20 }, () => `99.${'9'.repeat(200)}`).join(':'),
      bssplit: `${split64},${split64},${split64}`, description: 'd'.repeat(4096),
    },
    jobs: [{ name: 'a', filename: `/${'a\\:'.repeat(1365)}`, bs: `${'1'.repeat(4095)}x` }],
  }))],
  ['80,000 jobs', spec(() => ({ jobs: Array.from({ length: 80_000 }, () => ({})) }))],
  ['a [global] of 60,000 keys', spec(() => ({ global: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`o${i}`, 1])), jobs: [{ name: 'a' }] }))],
  ['4096 jobs under a [global] of every large value', spec(() => ({
    global: { bssplit: `${split64},${split64},${split64}`, percentile_list: Array.from({ length: 20 }, (_, i) => `${i + 1}`).join(':'), write_bw_log: true },
    jobs: Array.from({ length: 4096 }, (_, i) => ({ name: `j${i}` })),
  }))],
  // Valid jobs cost their parse: 1 MiB of them (3400) takes parseSpec about 250 ms, so the service
  // refuses jobs beyond its instance limit before it parses them (tests/api/hostile-input.test.ts).
  ['1024 jobs of 25 options from a job file', specOfJobFile(() => `[j]\n${KNOWN_OPTIONS.join('\n')}\n`.repeat(1024))],
  ['the job file of one option repeated', specOfJobFile(() => `[x]\n${fill('bs=4k\n')}`)],
];

const commandLines: Case[] = [
  ['30,000 --name= jobs', args(() => Array.from({ length: 30_000 }, (_, i) => `--name=j${i}`))],
  ['an option name of 900 KB', args(() => ['--name=a', `--${'x'.repeat(900 * K)}=1`])],
  ['an --output-format of 900 KB', args(() => ['--name=a', `--output-format=${fill('json,', 900 * K)}`])],
  ['a value of 900 KB, parsed', specOfArgs(() => ['--name=a', `--bssplit=${fill('4k/1:', 900 * K)}`])],
];

describe.each([
  ['parseAssertion', assertions],
  ['parseJobFile', jobFiles],
  ['parseSpec', specs],
  ['parseFioArgs', commandLines],
])('%s on the worst inputs up to 1 MiB', (_, cases) => {
  it.each(cases)('%s: parsed or refused within the budget', (_, prepare) => {
    const { ms, error } = timed(prepare());
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    if (error) {
      expect(error.field).toBeTruthy();
      expect(error.accepted).toBeTruthy();
      expect(error.message.length).toBeLessThan(16 * 1024);
    }
  });
});
