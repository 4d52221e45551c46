/**
 * Help and the small errors of the command line, as a user meets them.
 *
 * Broke: `volbench run --help` exited 2 ("fio flag '--help' is not supported"), as did
 * `demo --help`; sweep, uniformity and rotational listed --until-baseline and
 * --no-cloud-lookup, which only run takes; `suite list` looked for a suite named "list" where
 * `catalog list` lists; `runn` got no did-you-mean; an invalid rw did not say the valid ones;
 * `report --region mars-1` left every price empty with exit 0; `serve` without a root generated
 * and printed a token before failing. Expected: each command's --help exits 0 with what applies
 * to it, and each error exits 2 naming the field and what it accepts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { COMMANDS, commandUsage } from '../../src/cli/help.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { FIXTURES } from '../publish/helpers.js';

const needs = requires('child');

const dir = mkdtempSync(join(tmpdir(), 'volbench-cli-help-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Flags that only `run` takes. */
const RUN_ONLY = ['--until-baseline', '--until-steady'];

describe('help', () => {
  it('every command has a usage of its own', async () => {
    expect(COMMANDS).toEqual(['run', 'demo', 'doctor', 'serve', 'suite', 'compare', 'report', 'fleet', 'catalog', 'prices', 'sweep', 'uniformity', 'rotational', 'ebs-stats']);
    const usages = await Promise.all(COMMANDS.map(commandUsage));
    usages.forEach((text, i) => expect(text).toContain(`volbench ${COMMANDS[i]}`));
    expect(new Set(usages).size).toBe(COMMANDS.length);
  });

  it('--help, -h and help COMMAND print it with exit 0, before anything else is parsed', async () => {
    for (const command of ['run', 'demo', 'serve', 'uniformity']) {
      const out = await volbench([command, '--help']);
      expect(out.code, `${command}: ${out.stderr}`).toBe(0);
      expect(out.stderr).toBe('');
      expect(out.stdout).toBe(await commandUsage(command));
    }
    // The same text however it is asked, whatever else is on the line.
    for (const args of [['run', '-h'], ['help', 'run'], ['run', '--name=x', '--rw=bogus', '--help']]) {
      const out = await volbench(args);
      expect(out.code, args.join(' ')).toBe(0);
      expect(out.stdout).toBe(await commandUsage('run'));
    }
    expect((await volbench(['fleet', 'help'])).stdout).toBe(await commandUsage('fleet'));
    // After `--`, --help is a job file's name, not a request for help.
    const literal = await volbench(['run', '--', '--help']);
    expect(literal.code).toBe(2);
    expect(literal.stderr).toContain("cannot read job file '--help'");
  });

  it("lists each command's own flags: run's only under run", async () => {
    const run = await commandUsage('run');
    for (const flag of [...RUN_ONLY, '--assert', '--volume', '--max-runtime', '--output-format', '--prices']) expect(run).toContain(flag);
    for (const command of ['sweep', 'uniformity', 'rotational', 'suite']) {
      const text = await commandUsage(command);
      for (const flag of RUN_ONLY) expect(text, `${command} lists ${flag}`).not.toContain(flag);
      expect(text).toContain('--assert');
    }
    expect(await commandUsage('suite')).toContain('--prices');
    expect(await commandUsage('sweep')).not.toContain('--prices');
    expect(await commandUsage('demo')).toContain('--directory DIR');
    // The lookup of the EBS volume a target is on: run and suite make it, the analyses never do.
    expect(run).toContain('--no-cloud-lookup');
    expect(await commandUsage('suite')).toContain('--no-cloud-lookup');
    for (const command of ['sweep', 'uniformity', 'rotational']) expect(await commandUsage(command)).not.toContain('--no-cloud-lookup');
  });

  it('says what --max-runtime does in each command, not the suite\'s words everywhere', async () => {
    const texts = await Promise.all(['run', 'suite', 'sweep', 'uniformity', 'rotational'].map(async (command) => {
      const usage = await commandUsage(command);
      const at = usage.indexOf('  --max-runtime TIME');
      return usage.slice(at, usage.indexOf('\n  --', at + 1));
    }));
    expect(new Set(texts).size).toBe(5);
    expect(texts[0]).toMatch(/stonewall stages/);
    expect(texts[1]).toMatch(/tests, times its loops/);
    expect(texts[2]).toMatch(/points/);
    expect(texts[3]).toMatch(/chunk/);
    expect(texts[4]).toMatch(/timed reads/);
    for (const t of texts.slice(2)) expect(t).not.toMatch(/suite|stonewall/);
  });

  it('a flag only run takes is refused by the others, naming it', async () => {
    const out = await volbench(['uniformity', '--filename', join(dir, 'u.bin'), '--no-cloud-lookup']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("uniformity does not take '--no-cloud-lookup'");
  });
});

describe('errors', () => {
  it('an unknown command gets the closest one and the list', async () => {
    const out = await volbench(['runn']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("unknown command 'runn'; did you mean 'run'?");
    expect(out.stderr).toContain('accepted: run, demo, doctor, serve, suite');
  });

  it('an invalid rw gets the closest one and lists the valid ones', async () => {
    const out = await volbench(['run', '--name=x', `--filename=${join(dir, 'x.bin')}`, '--size=1m', '--rw=randomread']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("'randomread' is not a valid rw; did you mean 'randread'? [jobs[0].rw]");
    expect(out.stderr).toMatch(/accepted: one of read, write, .*randread.*randrw/);
  });

  it('suite list and suite show work as catalog list and show do', async () => {
    const list = await volbench(['suite', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe((await volbench(['suite', '--list'])).stdout);
    expect(list.stdout).toMatch(/^kdiskmark: /m);
    const show = await volbench(['suite', 'show', 'kdiskmark']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toBe((await volbench(['suite', '--show', 'kdiskmark'])).stdout);
    expect(show.stdout).toContain('[RND4K-Q32T1-read]');
  });

  it('an unknown --region is refused naming the flag, in report and catalog price', async () => {
    const report = await volbench(['report', join(FIXTURES, 'aws-ssd-vol-a.json'), '--region', 'mars-1']);
    expect(report.code).toBe(2);
    expect(report.stdout).toBe('');
    expect(report.stderr).toContain("--region 'mars-1' has no prices");
    expect(report.stderr).toContain('[--region]');
    expect(report.stderr).toMatch(/accepted: .*us-east-1/);
    const price = await volbench(['catalog', 'price', 'gp3', '--size', '100g', '--region', 'us-east-2']);
    expect(price.code).toBe(2);
    expect(price.stderr).toContain("(did you mean 'us-east-1'?)");
    expect(price.stderr).toContain('[--region]');
  });

  it('serve without a root fails before it generates a token', async () => {
    const data = join(dir, 'data');
    const env = { ...process.env, VOLBENCH_TOKEN: '' };
    for (const roots of [[], ['--target-root', join(dir, 'no-such-root')]]) {
      const out = await volbench(['serve', '--port', '0', '--data-dir', data, ...roots], undefined, env);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/at least one target root is needed|does not exist/);
      expect(out.stderr).not.toContain('token');
      expect(existsSync(join(data, 'token'))).toBe(false);
    }
  });
});
