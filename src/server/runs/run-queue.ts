/**
 * The run queue: first come, first served, one run at a time per device (queue key), runs on
 * different devices together up to maxConcurrent. A run waits while any of its keys is busy or
 * claimed by an earlier waiting run, so a run on two devices cannot starve behind a stream of
 * runs on one of them.
 */
export interface QueueEntry {
  id: string;
  queueKeys: string[];
  roots: string[];
  /** What the run's engine takes (I/O buffers and the rest), counted against maxMemoryBytes. */
  memoryBytes?: number;
}

export interface RunQueueOptions {
  maxConcurrent: number;
  /** Memory the runs going at once may take together, with heldBytes; 0 or unset: no bound. */
  maxMemoryBytes?: number;
  /** Memory held outside the running runs (jobs given up on, until their threads end). */
  heldBytes?: () => number;
  /** The most one root's runs may take at once, with what is held there; 0 or unset: no bound. */
  rootMemoryBytes?: number;
  /** heldBytes by root (QueueEntry.roots' names). */
  heldByRoot?: () => ReadonlyMap<string, number>;
  limit: number;
  /** Starts a run; the promise settles when it has ended, freeing its keys. */
  start: (entry: QueueEntry) => Promise<void>;
}

/** How often a run held back by stuck jobs' memory looks again. */
const HELD_MEMORY_RETRY_MS = 1000;

export class RunQueue {
  private readonly waiting: QueueEntry[] = [];
  private readonly running = new Map<string, QueueEntry>();
  private readonly busyKeys = new Set<string>();
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly options: RunQueueOptions) {}

  /** Whether a run on these keys can be taken: it starts at once, or the queue has room. */
  canAccept(queueKeys: string[]): boolean {
    return !this.isFull() || this.canStartNow(queueKeys);
  }

  /** Whether the queue has no room: only a run that can start at once is taken. */
  isFull(): boolean {
    return this.waiting.length >= this.options.limit;
  }

  /** Adds a run and starts whatever can start. The caller checks canAccept() first. */
  enqueue(entry: QueueEntry): void {
    this.waiting.push(entry);
    this.pump();
  }

  /** Takes a waiting run out of the queue; false when it is not waiting (running or unknown). */
  remove(id: string): boolean {
    const index = this.waiting.findIndex((e) => e.id === id);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    this.pump();
    return true;
  }

  /** Waiting and running runs that use `root`. */
  countsFor(root: string): { queued: number; running: number } {
    const uses = (e: QueueEntry): boolean => e.roots.includes(root);
    return { queued: this.waiting.filter(uses).length, running: [...this.running.values()].filter(uses).length };
  }

  /** The memory of the runs going now and of the stuck jobs, and whether `entry` fits beside it. */
  private memoryFits(entry: Pick<QueueEntry, 'memoryBytes' | 'roots'>): boolean {
    const max = this.options.maxMemoryBytes ?? 0;
    if (max <= 0) return true;
    const held = this.options.heldBytes?.() ?? 0;
    const used = [...this.running.values()].reduce((sum, e) => sum + (e.memoryBytes ?? 0), held);
    // A run alone is never held back: admission has checked it fits the bound by itself.
    const fits = (this.running.size === 0 && held === 0) || used + (entry.memoryBytes ?? 0) <= max;
    if (fits && this.rootsFit(entry)) return true;
    // Held back by stuck memory, which frees without a run ending: look again later.
    if (held > 0) this.pumpLater();
    return false;
  }

  /** Whether `entry` fits beside the runs going on each of its roots and what is held there. */
  private rootsFit(entry: Pick<QueueEntry, 'memoryBytes' | 'roots'>): boolean {
    const cap = this.options.rootMemoryBytes ?? 0;
    if (cap <= 0) return true;
    const held = this.options.heldByRoot?.() ?? new Map<string, number>();
    return entry.roots.every((root) => {
      const on = [...this.running.values()].filter((e) => e.roots.includes(root));
      const used = on.reduce((sum, e) => sum + (e.memoryBytes ?? 0), held.get(root) ?? 0);
      return (on.length === 0 && used === 0) || used + (entry.memoryBytes ?? 0) <= cap;
    });
  }

  private pumpLater(): void {
    if (this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.pump();
    }, HELD_MEMORY_RETRY_MS);
    this.retry.unref();
  }

  private canStartNow(queueKeys: string[]): boolean {
    if (this.running.size >= this.options.maxConcurrent) return false;
    const claimed = new Set(this.waiting.flatMap((e) => e.queueKeys));
    return queueKeys.every((k) => !this.busyKeys.has(k) && !claimed.has(k));
  }

  private pump(): void {
    const claimed = new Set<string>();
    for (const entry of [...this.waiting]) {
      if (this.running.size >= this.options.maxConcurrent) return;
      const free = entry.queueKeys.every((k) => !this.busyKeys.has(k) && !claimed.has(k));
      if (free && this.memoryFits(entry)) this.startEntry(entry);
      else entry.queueKeys.forEach((k) => claimed.add(k));
    }
  }

  private startEntry(entry: QueueEntry): void {
    this.waiting.splice(this.waiting.indexOf(entry), 1);
    this.running.set(entry.id, entry);
    entry.queueKeys.forEach((k) => this.busyKeys.add(k));
    const release = (): void => {
      this.running.delete(entry.id);
      entry.queueKeys.forEach((k) => this.busyKeys.delete(k));
      this.pump();
    };
    this.options.start(entry).then(release, release);
  }
}
