/**
 * What a fleet takes from a state file and a stack's outputs, without AWS: a state read back is
 * parsed strictly and refused naming the field that volbench would not have written; an endpoint
 * output is an https URL or refused naming the output; result files stay under --out, are
 * written beneath its held descriptor, follow no link and replace nothing but the member's own
 * earlier result.
 *
 * Broke (0.1.0): a state was taken as it was (its stack names, secrets, bucket and labels acted
 * on), and a label `../../x/package` wrote `x/package.json` outside --out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import { fleetVolumes, parseEndpoint, parseFleetState, planFleet, ResultFiles } from '../../src/fleet/index.js';
import { requires } from '../helpers/requires.js';

requires('child');

const plan = planFleet({ volumes: fleetVolumes('gp3:1g,io2:4g:iops=400', 'm6i.large'), instanceType: 'm6i.large', region: 'us-east-1' });
const id = plan.fleetId;

/** A state as `fleet up` saves it. */
function written(): Record<string, unknown> {
  return JSON.parse(JSON.stringify({
    fleetId: id, region: 'us-east-1', createdAt: '2026-11-29T10:00:00.000Z', status: 'up', plan, bucket: 'results',
    expiresAt: '2026-11-29T12:00:00Z',
    objects: [`${id}/bundle/volbench-0.1.0-linux-x64.tar.gz`, ...plan.members.map((m) => `${id}/tls/${m.label}.crt`)],
    members: plan.members.map((m) => ({
      label: m.label, stackName: m.stackName, status: 'created', endpoint: 'https://54.0.0.1:8443', instanceId: 'i-0123456789abcdef0',
      tokenParameter: `/volbench/${id}/${m.label}/token`, tlsKeyParameter: `/volbench/${id}/${m.label}/tls-key`, tlsFingerprint: Array(32).fill('AB').join(':'),
    })),
  }));
}

function refusal(state: unknown, bucket: string | undefined = 'results'): VolbenchError {
  try {
    parseFleetState(state, id, `s3://results/${id}/fleet.json`, bucket);
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error('accepted');
}

describe('a fleet state read back', () => {
  it('is taken as it is when volbench wrote it for this fleet and this bucket', () => {
    expect(parseFleetState(written(), id, 'here', 'results').members.map((m) => m.label)).toEqual(['gp3-1g', 'io2-4g-400iops']);
  });

  it('is refused naming the field where it names what volbench would not have', () => {
    const cases: Array<[string, (s: any) => void]> = [
      ['members[0].stackName', (s) => { s.members[0].stackName = 'prod-database'; }],
      ['members[1].tokenParameter', (s) => { s.members[1].tokenParameter = '/prod/db/password'; }],
      ['members[0].tlsKeyParameter', (s) => { s.members[0].tlsKeyParameter = `/volbench/${id}/${s.members[1].label}/tls-key`; }],
      ['tlsKeyParameter', (s) => { s.tlsKeyParameter = '/prod/db/password'; }],
      ['members[0].label', (s) => { s.members[0].label = 'results'; }],
      ['bucket', (s) => { s.bucket = 'prod-backups'; }],
      ['objects[0]', (s) => { s.objects = ['db/2026-11-28.dump']; }],
      ['objects[0]', (s) => { s.objects = [`${id}/../db/2026-11-28.dump`]; }],
      ['fleetId', (s) => { s.fleetId = 'vb0000000000'; }],
      ['plan.members[0].stackName', (s) => { s.plan.members[0].stackName = 'prod-database'; }],
      ['members[0].label', (s) => { s.members[0].label = '../../x/package'; }],
      ['plan.members[0].label', (s) => { s.plan.members[0].label = '../../x/package'; }],
      ['members[0].label', (s) => { s.members[0].label = 'other'; s.members[0].stackName = `volbench-${id}-other`; s.members[0].tokenParameter = `/volbench/${id}/other/token`; }],
      ['tokenParameter', (s) => { s.tokenParameter = '/prod/db/password'; }],
      ['members[0].instanceId', (s) => { s.members[0].instanceId = 'i-; rm -rf /'; }],
      ['members[0].endpoint', (s) => { s.members[0].endpoint = 'https://${Instance.PublicIp}:8443'; }],
      ['members[1].endpoint', (s) => { s.members[1].endpoint = 'http://127.0.0.1:8080'; }],
      ['region', (s) => { s.region = 'us-east-1/../x'; }],
    ];
    for (const [field, change] of cases) {
      const state = written();
      change(state);
      const err = refusal(state);
      expect(err.code, field).toBe('EFLEET_STATE');
      expect(err.field, err.message).toBe(field);
      expect(err.accepted).toBeTruthy();
    }
  });

  it('names the bucket it was read from; a local file names its own', () => {
    const state = written();
    state.bucket = 'elsewhere';
    expect(refusal(state).field).toBe('bucket');
    expect(parseFleetState(state, id, 'local').bucket).toBe('elsewhere');
  });

  it('is refused when it is no JSON object at all', () => {
    expect(refusal(null).field).toBe('(the whole file)');
    expect(refusal([]).field).toBe('(the whole file)');
  });
});

describe('an endpoint from a stack output', () => {
  it('is an https URL with a host and a port, nothing else', () => {
    expect(parseEndpoint('https://54.0.0.1:8443', 'o')).toBe('https://54.0.0.1:8443');
    expect(parseEndpoint('https://10.0.0.5:8443/', 'o')).toBe('https://10.0.0.5:8443');
    const refused = (value: string) => {
      try {
        parseEndpoint(value, 'stack volbench-x output PublicEndpoint');
      } catch (err) {
        return err as VolbenchError;
      }
      throw new Error(`${value} accepted`);
    };
    for (const bad of ['https://${Instance.PublicIp}:8443', 'http://54.0.0.1:8443', 'https://u:p@54.0.0.1:8443', 'https://54.0.0.1:8443/x', 'https://54.0.0.1:8443?a', 'not a url', 'file:///etc/passwd']) {
      const err = refused(bad);
      expect(err.code, bad).toBe('EFLEET_STATE');
      expect(err.field).toBe('stack volbench-x output PublicEndpoint');
    }
    expect(refused('https://${Instance.PublicIp}:8443').message).toMatch(/unrendered template/);
  });
});

describe('result files under --out', () => {
  const dir = mkdtempSync(join(tmpdir(), `volbench-results-${process.pid}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const result = (label: string, n: number) => `${JSON.stringify({ jobs: [], n, volbench: { cloud: { fleet: { id, label } } } })}\n`;

  it('are written there, and a second run replaces its own', () => {
    const out = join(dir, 'out');
    const files = ResultFiles.open(out, id, true)!;
    expect(files.write('gp3-1g', result('gp3-1g', 1))).toBe(join(out, id, 'gp3-1g.json'));
    files.close();
    const again = ResultFiles.open(out, id, true)!;
    again.write('gp3-1g', result('gp3-1g', 2));
    expect(JSON.parse(again.readResult('gp3-1g')!).n).toBe(2);
    again.close();
    expect(JSON.parse(readFileSync(join(out, id, 'gp3-1g.json'), 'utf8')).n).toBe(2);
    // No temporary name is left behind.
    expect(execFileSync('ls', ['-A', join(out, id)], { encoding: 'utf8' }).trim()).toBe('gp3-1g.json');
  });

  it('refuse a label that is not one path component', () => {
    const files = ResultFiles.open(join(dir, 'labels'), id, true)!;
    for (const label of ['../../x/package', '..', '.hidden', 'a/b', '']) expect(() => files.write(label, '{}'), label).toThrow(VolbenchError);
    files.close();
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  it('follow no link, and replace nothing but a result of their own', () => {
    const out = join(dir, 'links');
    mkdirSync(join(out, id), { recursive: true });
    const victim = join(dir, 'victim.json');
    writeFileSync(victim, '{"name":"victim"}');
    symlinkSync(victim, join(out, id, 'gp3-1g.json'));
    writeFileSync(join(out, id, 'io2-4g-400iops.json'), '{"name":"not a result"}');
    execFileSync('mkfifo', [join(out, id, 'fifo.json')]);
    const files = ResultFiles.open(out, id, true)!;
    expect(() => files.write('gp3-1g', result('gp3-1g', 1))).toThrow(/not a result volbench wrote/);
    expect(() => files.write('io2-4g-400iops', result('io2-4g-400iops', 1))).toThrow(/not a result volbench wrote/);
    expect(() => files.write('fifo', result('fifo', 1))).toThrow(/not a result volbench wrote/);
    // Read back as none, and the FIFO never waited on.
    expect(files.readResult('gp3-1g')).toBeUndefined();
    expect(files.readResult('fifo')).toBeUndefined();
    files.close();
    expect(readFileSync(victim, 'utf8')).toBe('{"name":"victim"}');
    expect(readlinkSync(join(out, id, 'gp3-1g.json'))).toBe(victim);
    expect(readFileSync(join(out, id, 'io2-4g-400iops.json'), 'utf8')).toBe('{"name":"not a result"}');
    expect(execFileSync('ls', ['-A', join(out, id)], { encoding: 'utf8' }).trim().split('\n').sort()).toEqual(['fifo.json', 'gp3-1g.json', 'io2-4g-400iops.json']);
  });

  it('are not written through a fleet folder that is a link', () => {
    const out = join(dir, 'swapped');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(out);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, id));
    expect(() => ResultFiles.open(out, id, true)).toThrow(/not a folder \(a link is not followed\)/);
    expect(ResultFiles.open(out, 'vb0000000000', false)).toBeUndefined();
    expect(lstatSync(join(out, id)).isSymbolicLink()).toBe(true);
    expect(execFileSync('ls', ['-A', elsewhere], { encoding: 'utf8' })).toBe('');
  });
});
