/**
 * The queue on its own: one run per device key at a time, first come first served, up to
 * maxConcurrent runs on different keys, and a run on two devices is not starved by a stream of
 * runs on one of them.
 */
import { describe, expect, it } from 'vitest';

import { RunQueue, type QueueEntry } from '../../src/server/runs/run-queue.js';
import { requires } from '../helpers/requires.js';

requires();

function harness(maxConcurrent: number, limit = 100) {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const queue = new RunQueue({
    maxConcurrent,
    limit,
    start: (entry) => {
      started.push(entry.id);
      return new Promise<void>((resolve) => finishers.set(entry.id, resolve));
    },
  });
  const add = (id: string, ...queueKeys: string[]): void => queue.enqueue({ id, queueKeys, roots: [] } satisfies QueueEntry);
  const finish = async (id: string): Promise<void> => {
    finishers.get(id)!();
    await new Promise((r) => setImmediate(r));
  };
  return { queue, started, add, finish };
}

describe('RunQueue', () => {
  it('runs one run per key at a time, in arrival order', async () => {
    const { started, add, finish } = harness(4);
    add('a', 'disk:x');
    add('b', 'disk:x');
    add('c', 'disk:x');
    expect(started).toEqual(['a']);
    await finish('a');
    expect(started).toEqual(['a', 'b']);
    await finish('b');
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('runs runs on different keys together, up to maxConcurrent', async () => {
    const { started, add, finish } = harness(2);
    add('a', 'disk:x');
    add('b', 'disk:y');
    add('c', 'disk:z');
    expect(started).toEqual(['a', 'b']);
    await finish('b');
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('does not let later runs on one device starve an earlier run that needs two', async () => {
    const { started, add, finish } = harness(4);
    add('x1', 'disk:x');
    add('both', 'disk:x', 'disk:y');
    add('y1', 'disk:y');
    expect(started).toEqual(['x1']);
    await finish('x1');
    expect(started).toEqual(['x1', 'both']);
    await finish('both');
    expect(started).toEqual(['x1', 'both', 'y1']);
  });

  it('accepts a run that can start at once even when the waiting room is full', () => {
    const { queue, add } = harness(2, 1);
    add('a', 'disk:x');
    add('b', 'disk:x');
    expect(queue.canAccept(['disk:x'])).toBe(false);
    expect(queue.canAccept(['disk:y'])).toBe(true);
  });

  it('takes a waiting run out without starting it', async () => {
    const { queue, started, add, finish } = harness(1);
    add('a', 'disk:x');
    add('b', 'disk:x');
    expect(queue.remove('b')).toBe(true);
    expect(queue.remove('a')).toBe(false);
    await finish('a');
    expect(started).toEqual(['a']);
  });
});

describe('RunQueue memory', () => {
  it('starts a run only when its memory fits beside the runs going, whatever their devices', async () => {
    // --max-memory was checked per run only: four runs of a quarter of RAM each on four disks
    // could take all of it together.
    const started: string[] = [];
    const finishers = new Map<string, () => void>();
    const queue = new RunQueue({
      maxConcurrent: 4, limit: 10, maxMemoryBytes: 100,
      start: (entry) => {
        started.push(entry.id);
        return new Promise<void>((resolve) => finishers.set(entry.id, resolve));
      },
    });
    queue.enqueue({ id: 'a', queueKeys: ['disk:a'], roots: [], memoryBytes: 60 });
    queue.enqueue({ id: 'b', queueKeys: ['disk:b'], roots: [], memoryBytes: 60 });
    queue.enqueue({ id: 'c', queueKeys: ['disk:c'], roots: [], memoryBytes: 30 });
    expect(started).toEqual(['a', 'c']);
    finishers.get('a')!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'c', 'b']);
  });
});

describe('RunQueue memory per root', () => {
  it('holds back a run that would take its root past its share, with what stuck jobs hold there', async () => {
    // One root over two devices: its runs could otherwise take the whole budget together, and
    // all of it stays held if that root's devices stop answering.
    const started: string[] = [];
    const finishers = new Map<string, () => void>();
    let held = new Map<string, number>();
    const queue = new RunQueue({
      maxConcurrent: 4, limit: 10, maxMemoryBytes: 100, rootMemoryBytes: 75, heldByRoot: () => held,
      start: (entry) => {
        started.push(entry.id);
        return new Promise<void>((resolve) => finishers.set(entry.id, resolve));
      },
    });
    queue.enqueue({ id: 'a', queueKeys: ['disk:a'], roots: ['/r'], memoryBytes: 40 });
    queue.enqueue({ id: 'b', queueKeys: ['disk:b'], roots: ['/r'], memoryBytes: 40 });
    queue.enqueue({ id: 'c', queueKeys: ['disk:c'], roots: ['/other'], memoryBytes: 40 });
    expect(started).toEqual(['a', 'c']);
    finishers.get('a')!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'c', 'b']);
    // Memory held on a root by stuck jobs counts against that root's share: 50 + 30 fits the
    // budget, not the root's 75.
    finishers.get('b')!();
    finishers.get('c')!();
    await new Promise((r) => setImmediate(r));
    held = new Map([['/other', 50]]);
    queue.enqueue({ id: 'd', queueKeys: ['disk:d'], roots: ['/other'], memoryBytes: 30 });
    queue.enqueue({ id: 'e', queueKeys: ['disk:e'], roots: ['/r'], memoryBytes: 30 });
    expect(started).toEqual(['a', 'c', 'b', 'e']);
  });
});
