/**
 * Every test file says what it needs (tests/helpers/requires.ts), and that alone decides where it
 * runs. Before, one serial queue ran all 192 files, each in a process of its own; now a file that
 * needs nothing of the machine runs in parallel with others and shares their modules, so a file
 * must not land there while it needs a device. Expected: every file declares its needs on one
 * readable line; a file whose own text starts a process, touches /dev or uses a device or the
 * run's fixtures is not in the unit project; and a unit file that starts a process or makes a file
 * under /dev anyway is stopped, with the requirement to declare.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { classify, projectOf, readDeclaration, REQUIREMENTS } from '../helpers/projects.js';
import { requires } from '../helpers/requires.js';

requires();

const ROOT = join(import.meta.dirname, '..', '..');
const { files, problems } = classify(ROOT);

/** What in a file's own text shows it needs more than the unit project gives. */
const DEVICE_MARKERS: [RegExp, string][] = [
  [/from 'node:child_process'/, 'imports node:child_process'],
  [/(mkdtemp|mkdir|open|writeFile)(Sync)?\((join\()?'\/dev\//, 'makes or opens a file under /dev'],
  [/'(losetup|mkfs\.ext4|mount|fio)'/, 'runs a device tool'],
  [/process\.getuid/, 'asks whether it runs as root'],
  [/\bnew (ScratchDir|TargetFixtures)\(/, 'makes a scratch directory on tmpfs or a loop device'],
  [/\bstartServer\(/, 'starts the API test server (its target root is on /dev/shm)'],
  [/from '\.\.\/helpers\/(moto|fixtures|packaging)\.js'/, "uses the run's shared fixtures (moto, the tarball, the bundles)"],
  [/\bvolbench\(\[/, 'runs the CLI'],
  [/from 'puppeteer-core'|from '\.\.\/browser\/browser\.js'/, 'starts a browser'],
];
/** This file starts a process and opens /dev/shm on purpose: to see the guard stop it. */
const CHECKS_THE_GUARD = 'tests/library/requires.test.ts';

describe('test files by need', () => {
  it('every test file declares its needs on one line the config can read', () => {
    expect(problems).toEqual([]);
  });

  it('the unit project has more than 50 files, none of them a packaging, fault or loop-device test', () => {
    expect(files.unit.length).toBeGreaterThan(50);
    expect(files.unit.filter((f) => /^tests\/(package|faults|harness)\/|loop-device|fleet-rehearsal|member-sandbox/.test(f))).toEqual([]);
    // Two service files run at once: none of them on a device, a throttle, a namespace or the
    // rehearsal (the rehearsal's stack waiter, against its worker's moto alone, may).
    const rehearsal = (f: string) => f.startsWith('tests/rehearsal/') && f !== 'tests/rehearsal/wait-stack.test.ts';
    expect(files.service.filter((f) => rehearsal(f) || /^tests\/(faults|harness|compat)\/|loop-device|throttle|blkio/.test(f))).toEqual([]);
    expect(files.package).toEqual(expect.arrayContaining(['tests/package/install.test.ts', 'tests/package/bundle.test.ts', 'tests/rehearsal/fleet-rehearsal.test.ts']));
  });

  it('every requirement a file checks is on its declaration line', () => {
    const undeclared = Object.values(files).flat().flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const declared = (readDeclaration(text) as { names: string[] }).names;
      const checked = [...text.matchAll(/needs\.missing\(([^)]*)\)/g)].flatMap((m) => [...m[1].matchAll(/'([a-z_-]+)'/g)].map((n) => n[1]));
      // Asking needs.engine for an engine checks io_uring or libaio when it is one of them.
      if (/needs\.engine\(/.test(text)) checked.push('io_uring', 'libaio');
      return [...new Set(checked)].filter((name) => !declared.includes(name)).map((name) => `${file} checks '${name}'`);
    });
    expect(undeclared).toEqual([]);
  });

  it("no unit file's own text shows a need of the machine", () => {
    const found = files.unit.filter((file) => file !== CHECKS_THE_GUARD).flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return DEVICE_MARKERS.filter(([marker]) => marker.test(text)).map(([, what]) => `${file} ${what}`);
    });
    expect(found).toEqual([]);
  });
});

describe('the declaration reader', () => {
  it('reads the names of the one line, or says what is wrong with it', () => {
    expect(readDeclaration("const needs = requires('root', 'loop');\n")).toEqual({ names: ['root', 'loop'] });
    expect(readDeclaration('requires();\n')).toEqual({ names: [] });
    expect(readDeclaration("import x from 'y';\n")).toMatchObject({ problem: expect.stringContaining('declares no needs') });
    expect(readDeclaration("requires();\nconst more = requires('loop');\n")).toMatchObject({ problem: expect.stringContaining('more than once') });
    expect(readDeclaration('const needs = requires(...NAMES);\n')).toMatchObject({ problem: expect.stringContaining('string literals') });
    expect(readDeclaration("const needs = requires('gpu');\n")).toMatchObject({ problem: expect.stringContaining("'gpu'") });
    // Indented or split, the line is not the declaration: the config would not see it.
    expect(readDeclaration("  const needs = requires('loop');\n")).toMatchObject({ problem: expect.any(String) });
  });

  it('docs/testing.md names every requirement', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
    expect(Object.keys(REQUIREMENTS).filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  });

  it('puts a file in the project of the requirement that asks the most', () => {
    expect(projectOf([])).toBe('unit');
    expect(projectOf(['io_uring', 'libaio', 'dist'])).toBe('unit');
    expect(projectOf(['io_uring', 'tmpfs'])).toBe('service');
    expect(projectOf(['child', 'chromium'])).toBe('service');
    // What measures time says so, and runs alone; moto is a server per worker, reset per file.
    expect(projectOf(['child', 'tmpfs', 'serial'])).toBe('device');
    expect(projectOf(['child', 'moto'])).toBe('service');
    expect(projectOf(['moto', 'netns'])).toBe('device');
    expect(projectOf(['tmpfs', 'loop'])).toBe('device');
    expect(projectOf(['moto', 'bundle'])).toBe('package');
    expect(new Set(Object.values(REQUIREMENTS).map((r) => r.project))).toEqual(new Set(['unit', 'service', 'device', 'package']));
  });
});

describe('the unit guard', () => {
  it('stops a unit file that starts a process, naming the requirement to declare', () => {
    expect(() => spawnSync('true')).toThrow(/started a process \(spawnSync true\): declare requires\('child'\)/);
  });

  it('stops a unit file that makes a directory on /dev/shm', () => {
    expect(() => mkdtempSync('/dev/shm/volbench-unit-')).toThrow(/declare requires\('tmpfs'\)/);
  });

  it('refuses a check of a requirement the file did not declare', () => {
    expect(() => requires().missing('loop')).toThrow(/'loop' is checked but not declared/);
  });
});
