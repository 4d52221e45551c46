/**
 * The study rehearsed, shortened for CI: `npm run rehearse:fleet` with two members (gp3 running
 * aws-ssd, st1 running aws-hdd, as --suite auto gives them) and 10 s tests, in both modes. The
 * user's `fleet compare` runs against moto; each member's rendered user data boots in the sandbox
 * from the bundle in moto's S3. Autonomous (the default): each member runs the study's spec, writes
 * under its own prefix, opens no port and shuts itself down. Interactive (--interactive): the
 * member answers over TLS through a port forward, pinned to its own certificate.
 * Expected: every volume has a gated test and every gated measured/entitled is within
 * 0.85–1.10 (the emulation follows the catalog's model: anything else is a bug in the chain),
 * bound (as the results say, measured from the volume's emulated EBS statistics page where it
 * shows a limit exceeded) by the limit the model names, and nothing is left in moto, schedules
 * included. The report the rehearsal publishes (report.json, .md, .html) says it is a rehearsal,
 * at which scale, and holds each test to its scaled entitlement. A member whose bundle is bad
 * fails within a minute with its log's reason, and leaves nothing. A missing prerequisite, or an
 * --out another rehearsal holds, stops it before anything starts.
 *
 * The three rehearsals run at once, as three users' would: each has its own --out, moto, fleet,
 * loop devices, blkio groups and member networks, and mostly waits on its throttled volumes
 * (under a fifth of the two cores each), so the file takes about as long as its longest.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { expectGoal, readStudy, rehearse, runBundle, VERSION } from './rehearsal-run.js';

const needs = requires('child', 'blkio', 'netns', 'moto', 'awscli', 'bundle', 'dist');

const skip = needs.missing();

interface ReportCell { value: number | null; entitled: number | null; measured_vs_entitled: number | null; bound_by: string | null; bound_by_source: string | null }
interface ReportJson {
  title: string;
  context: { rehearsal: { rate: number; time: number } | null; ebs_stats: string | null };
  groups: Array<{ rows: Array<{ source: string; cells: Record<string, ReportCell> }> }>;
}

describe.skipIf(skip)(`the rehearsed study, shortened${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let work: string;
  let bundle: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'volbench-study-'));
    bundle = await runBundle();
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.concurrent('autonomous: two members run the spec on their own, open no port, write their own prefix, shut down; gated tests within 0.85–1.10, the report scaled, nothing left', async () => {
    const out = join(work, 'study');
    // 10 s tests: a test's first second (the queue filling, the throttle's first slice) weighs
    // too much in 5 s for 0.85 to hold on a loaded machine.
    const run = await rehearse(['--out', out, '--volumes', 'gp3:8g:throughput=250,st1:2t', '--runtime', '10s', '--package', bundle]);
    const study = readStudy(out);
    expectGoal(study, run);
    expect(study.mode).toBe('autonomous');
    expect(study.prerequisites?.map((p) => [p.name, p.ok])).toEqual(['root', 'blkio', 'ip', 'nft', 'losetup', 'moto', 'awscli', 'cli', 'bundle'].map((n) => [n, true]));
    expect(study.volumes.map((v) => [v.label, v.type, v.suite, v.inbound_rules, v.ended?.shutdown])).toEqual([
      ['gp3-8g-250mibs', 'gp3', 'aws-ssd', 0, true], ['st1-2t', 'st1', 'aws-hdd', 0, true]]);
    const [gp3, st1] = study.volumes;
    // gp3's 16 KiB random tests are held to its 3,000 IOPS (× 0.25); st1's 1 MiB sequential ones to
    // its 500 MiB/s (× 0.25): an HDD's tie binds on throughput. bound_by is the results' own.
    expect(gp3.tests.map((t) => [t.test, t.bound_by, t.limit, t.unit, t.entitled, t.gated])).toEqual([
      ['RND16K-Q1T16-write', 'volume-iops', 'volume-iops', 'IOPS', 750, true], ['RND16K-Q1T16-read', 'volume-iops', 'volume-iops', 'IOPS', 750, true]]);
    expect(st1.tests.map((t) => [t.test, t.bound_by, t.limit, t.unit, t.entitled, t.gated])).toEqual([
      ['SEQ1M-Q8T1-read', 'volume-throughput', 'volume-throughput', 'MiB/s', 125, true], ['SEQ1M-Q8T1-write', 'volume-throughput', 'volume-throughput', 'MiB/s', 125, true]]);
    // The published report's gated SSD cells: held to the scaled entitlement, bound by the volume's IOPS, measured.
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ReportJson;
    expect(report.context.ebs_stats).toBe('emulated');
    expect(report.title).toMatch(/\(rehearsal\)$/);
    const gp3Row = report.groups.flatMap((g) => g.rows).find((r) => r.source === join(out, 'results', study.fleet_id!, 'gp3-8g-250mibs.json'));
    expect(gp3Row, JSON.stringify(report.groups.flatMap((g) => g.rows.map((r) => r.source)))).toBeDefined();
    const cells = gp3.tests.filter((t) => t.gated).map((t) => gp3Row!.cells[`${t.test}:${t.dir}:iops`]);
    expect(cells).toHaveLength(2);
    for (const c of cells) {
      expect(c.entitled).toBe(750);
      expect(c.measured_vs_entitled).toBeGreaterThanOrEqual(0.85);
      expect(c.measured_vs_entitled).toBeLessThanOrEqual(1.1);
      expect(c.bound_by).toBe('volume-iops');
    }
    expect(cells.some((c) => c.bound_by_source === 'ebs-stats'), JSON.stringify(cells)).toBe(true);
    // The banner's words are expectGoal's; both files carry it.
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(study.report!.banner!);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/\| gp3 8 GiB 3000\/250 \|/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain(study.report!.banner!);
    // Kept on purpose: the study's spec, each member's own objects and the controller's copy of its result.
    const kept = study.kept_in_s3 ?? [];
    for (const label of ['gp3-8g-250mibs', 'st1-2t']) {
      for (const name of ['progress.json', 'result.json', 'done.json', 'member.log']) expect(kept, `${label}/${name}`).toContain(`s3://volbench-rehearsal/${study.fleet_id}/${label}/${name}`);
      expect(kept).toContain(`s3://volbench-rehearsal/${study.fleet_id}/results/${label}.json`);
    }
    expect(kept).toContain(`s3://volbench-rehearsal/${study.fleet_id}/study/spec.json`);
    expect(study.up_to_all_running_s).toBeGreaterThan(0);
    // The table the study printed.
    expect(readFileSync(join(out, 'compare.md'), 'utf8')).toMatch(/\| gp3-8g-250mibs \|/);
  }, 420_000);

  it.concurrent('interactive: the member answers over HTTPS through a port forward, pinned to its own certificate, and nothing is left', async () => {
    const out = join(work, 'interactive');
    const run = await rehearse(['--out', out, '--interactive', '--volumes', 'gp3:8g:throughput=250', '--runtime', '10s', '--package', bundle]);
    const study = readStudy(out);
    expectGoal(study, run);
    expect(study.mode).toBe('interactive');
    expect(study.command).toMatch(/fleet compare --interactive .*--endpoint-map/);
    // Its service port, open to --allowed-cidr: the one inbound rule.
    expect(study.volumes.map((v) => [v.label, v.inbound_rules])).toEqual([['gp3-8g-250mibs', 1]]);
  }, 420_000);

  it.concurrent('a member whose bundle is bad fails within a minute with the reason from its log, and nothing is left', async () => {
    const bad = join(work, `volbench-${VERSION}-linux-x64.tar.gz`);
    writeFileSync(bad, 'not a tarball\n');
    const out = join(work, 'bad');
    const run = await rehearse(['--out', out, '--volumes', 'gp3:8g', '--runtime', '5s', '--package', bad]);
    expect(run.code).toBe(1);
    const study = readStudy(out);
    const [member] = study.volumes;
    expect(member.boot?.signal, JSON.stringify(member)).toBe('FAILURE');
    expect(member.boot!.seconds_to_signal as number).toBeLessThan(60);
    // The step and the log's last line, as the member signalled them, reach the fleet's user.
    expect(member.boot!.reason).toMatch(/bundle/);
    const compare = readFileSync(join(out, 'compare.log'), 'utf8');
    expect(compare).toContain('gp3-8g');
    expect(compare).toMatch(/bundle/);
    expect(Object.values(study.leftovers).every((n) => n === 0), JSON.stringify(study.leftover_items)).toBe(true);
    expect(readdirSync(out)).toContain('rehearsal.log');
    expect(run.seconds).toBeLessThan(300);
  }, 300_000);

  // These stop before anything starts: no moto, no member.
  it('refuses to start naming each missing prerequisite, one line each', async () => {
    const out = mkdtempSync(join(tmpdir(), 'volbench-study-prereq-'));
    try {
      const run = await rehearse(['--out', out, '--package', join(out, 'no-such-bundle.tar.gz')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/prerequisite MISSING bundle: .*no-such-bundle\.tar\.gz is missing: npm run bundle -- --arch x64, or --package FILE/);
      expect(run.stderr.match(/prerequisite (ok {2}|MISSING) \w+:/g)).toHaveLength(9);
      expect(run.stderr).toContain('a prerequisite is missing: nothing was started');
      expect(existsSync(join(out, '.rehearsal.lock'))).toBe(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses to start on an --out another rehearsal holds', async () => {
    const out = mkdtempSync(join(tmpdir(), 'volbench-study-locked-'));
    try {
      mkdirSync(out, { recursive: true });
      // This test's own process: alive, as a rehearsal running on that --out would be.
      writeFileSync(join(out, '.rehearsal.lock'), `${process.pid}\n`);
      const run = await rehearse(['--out', out]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${out} is in use by the rehearsal of pid ${process.pid}`);
      expect(readFileSync(join(out, '.rehearsal.lock'), 'utf8')).toBe(`${process.pid}\n`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
