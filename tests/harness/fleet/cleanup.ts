/**
 * What the rehearsal must end whatever happens: the CLI it runs, the member sandboxes and their
 * volumes, moto, the lock on --out. Each is registered as it is made and ended in the reverse
 * order, once; SIGINT and SIGTERM end them all before the driver exits with the signal's status,
 * so nothing outlives it (a hung driver's moto once lived on until its caller's timeout).
 */
export class Cleanup {
  private readonly steps: Array<{ what: string; run: () => unknown }> = [];
  private running: Promise<void> | undefined;

  add(what: string, run: () => unknown): void {
    this.steps.push({ what, run });
  }

  /** Runs every step still registered, newest first; a step that fails is said and the rest go on. */
  run(log: (line: string) => void): Promise<void> {
    this.running ??= (async () => {
      while (this.steps.length) {
        const { what, run } = this.steps.pop()!;
        try {
          await Promise.race([run(), new Promise((r) => setTimeout(r, 20_000).unref())]);
        } catch (err) {
          log(`cleanup: ${what}: ${(err as Error).message}`);
        }
      }
    })();
    return this.running;
  }

  /** On SIGINT or SIGTERM: `first(signal)`, then every step, then exit with the signal's status. */
  onSignals(log: (line: string) => void, first: (signal: NodeJS.Signals) => unknown = () => {}): void {
    const status: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        log(`${sig}: ending the rehearsal, its CLI, members, volumes and moto`);
        void Promise.resolve().then(() => first(sig)).catch(() => {}).then(() => this.run(log)).finally(() => process.exit(status[sig]));
      });
    }
  }
}
