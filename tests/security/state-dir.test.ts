/**
 * The fleet's local state folder (--state-dir, XDG_STATE_HOME) when someone else can write into
 * it: a folder shared by a team, one under another user's home, or /tmp.
 *
 * Broke: every save of a state wrote `<dir>/<id>.json.tmp` by name, following a link and
 * truncating what it named, before renaming it. Whoever could write the folder watched for
 * `<id>.json` (the first save) and put a link at `<id>.json.tmp`: the next save (every step of
 * `fleet up`, `down`, a study) wrote the state's JSON over the link's target, any file the
 * operator may write (run as root: /etc/shadow). A FIFO at `<id>.json` stalled `fleet down ID` for
 * good on its read, and a state another user wrote there was taken as this machine's own.
 * Expected: a state is written to a new temporary name (O_EXCL, no link followed), then renamed;
 * a state file is read only when it is a regular file of this user's, without blocking; anything
 * else is not a state of this machine's.
 */
import { chownSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fleetVolumes, listStates, loadState, planFleet, saveState, type FleetState } from '../../src/fleet/index.js';
import { requires } from '../helpers/requires.js';

const needs = requires('root');
const NOBODY = 65534;

function stateOf(): FleetState {
  const plan = planFleet({ volumes: fleetVolumes('gp3:1g', 'm6i.large'), instanceType: 'm6i.large', region: 'us-east-1', runtime: '2s' });
  return { fleetId: plan.fleetId, region: 'us-east-1', createdAt: new Date().toISOString(), status: 'up', plan,
    members: plan.members.map((m) => ({ label: m.label, stackName: m.stackName, status: 'created' as const })) };
}

describe('a state folder someone else can write', () => {
  let dir: string;
  let victim: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vb-state-dir-'));
    victim = join(mkdtempSync(join(tmpdir(), 'vb-state-victim-')), 'precious');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(victim, '..'), { recursive: true, force: true });
  });

  it("a link planted at the save's temporary name is not followed: its target keeps its bytes", async () => {
    writeFileSync(victim, 'precious bytes\n');
    const state = stateOf();
    await saveState(state, dir);
    symlinkSync(victim, join(dir, `${state.fleetId}.json.tmp`));
    state.status = 'down';
    await saveState(state, dir);
    expect(readFileSync(victim, 'utf8')).toBe('precious bytes\n');
    await expect(loadState(state.fleetId, dir)).resolves.toMatchObject({ fleetId: state.fleetId, status: 'down' });
    expect(lstatSync(join(dir, `${state.fleetId}.json`)).isFile()).toBe(true);
  });

  it('a FIFO at a fleet\'s name is no state: load and list answer at once, never stall', async () => {
    const id = stateOf().fleetId;
    const fifo = join(dir, `${id}.json`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // A read that blocks holds the whole process: a writer lets it go after 2 s (twice: load,
    // then list), so a stall shows as time taken rather than as a hung test.
    const writer = spawn('timeout', ['8', 'sh', '-c', `sleep 2; : > '${fifo}'; sleep 1; : > '${fifo}'`], { stdio: 'ignore' });
    try {
      let started = Date.now();
      await expect(loadState(id, dir)).rejects.toMatchObject({ code: 'EFLEET_STATE' });
      expect(Date.now() - started).toBeLessThan(1000);
      started = Date.now();
      expect(listStates(dir).map((s) => s.fleetId)).not.toContain(id);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      writer.kill();
      rmSync(fifo);
    }
  }, 15_000);

  it.skipIf(needs.missing('root'))("a state another user wrote is not this machine's: refused by load, left out of list", async () => {
    const state = stateOf();
    const file = join(dir, `${state.fleetId}.json`);
    writeFileSync(file, JSON.stringify(state));
    chownSync(file, NOBODY, NOBODY);
    await expect(loadState(state.fleetId, dir)).rejects.toMatchObject({ code: 'EFLEET_STATE', field: '--state-dir' });
    expect(listStates(dir).map((s) => s.fleetId)).not.toContain(state.fleetId);
    rmSync(file);
  });
});
