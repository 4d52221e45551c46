/**
 * A `volbench serve` as a study's control plane, for the rehearsal's --via-http: the built CLI
 * started as an operator starts it (`--studies`, tokens in files of mode 0600, the limits), on
 * loopback and a port that stays the same across a restart, with the rehearsal's AWS endpoint in
 * its environment (its credentials are its own, never a request's). It can be killed with
 * SIGKILL and started again on the same data directory, as a crashed host's service would be.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { cli, type CliRun, type Running } from './cli-run.js';
import type { Cleanup } from './cleanup.js';
import { freePort } from './forward.js';

export interface ServiceOptions {
  /** Its directory: data/, root/ and the token files. */
  dir: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  cleanup: Cleanup;
  /** --studies and its limits, as the operator gives them. */
  studyFlags: string[];
}

export class StudyServiceProcess {
  readonly studyToken = randomBytes(24).toString('hex');
  private readonly runToken = randomBytes(24).toString('hex');
  private current: Running | undefined;
  private argv: string[] = [];
  url = '';
  /** What each life of the process ended with. */
  readonly exits: CliRun[] = [];

  constructor(private readonly o: ServiceOptions) {}

  /** The command line, tokens as files (what a reader of study.json sees). */
  get command(): string {
    return `volbench ${this.argv.join(' ')}`;
  }

  get pid(): number | undefined {
    return this.current?.child.pid;
  }

  async start(): Promise<void> {
    if (!this.url) {
      const { dir } = this.o;
      for (const d of ['data', 'root']) mkdirSync(join(dir, d), { recursive: true });
      writeFileSync(join(dir, 'run-token'), this.runToken, { mode: 0o600 });
      writeFileSync(join(dir, 'study-token'), this.studyToken, { mode: 0o600 });
      const port = await freePort();
      this.url = `http://127.0.0.1:${port}`;
      this.argv = ['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', join(dir, 'data'), '--target-root', join(dir, 'root'),
        '--token-file', join(dir, 'run-token'), '--study-token-file', join(dir, 'study-token'), ...this.o.studyFlags];
    }
    const run = cli(this.argv, this.o.env, this.o.log);
    this.current = run;
    this.o.cleanup.add(`volbench serve (pid ${run.child.pid})`, () => this.end(run, 'SIGKILL'));
    void run.done.then((r) => this.exits.push(r));
    await this.answering(run);
  }

  /** Waits until the service answers its health check (or its process ended first). */
  private async answering(run: Running, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`volbench serve ended as it started: ${(await run.done).stderr.slice(-800)}`);
      const ok = await fetch(`${this.url}/v1/healthz`).then((r) => r.ok, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`volbench serve did not answer ${this.url}/v1/healthz within ${ms / 1000} s`);
  }

  private async end(run: Running, signal: NodeJS.Signals): Promise<CliRun> {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill(signal);
    return run.done;
  }

  /** SIGKILL: nothing of it runs after (no lease released, no store closed); answers how it ended. */
  async kill(): Promise<CliRun> {
    return this.end(this.current!, 'SIGKILL');
  }

  /** SIGTERM: a graceful stop (leases released). */
  async stop(): Promise<CliRun | undefined> {
    return this.current ? this.end(this.current, 'SIGTERM') : undefined;
  }

  /** A request with the study token; the body parsed when it is JSON. */
  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.studyToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, text };
  }
}
