/**
 * The autonomous member: what `volbench fleet member` does on each instance of a study. It needs
 * no inbound path and no controller alive; it reads the study's spec and writes under its own
 * prefix, and that is how the controller (from any machine) follows it:
 *
 *   fetching         the spec, accepted only with the SHA-256 its stack was created with (spec.ts),
 *                    its own entry, its device, every check of its workload (workload.ts);
 *                    then its one signal to the stack (SUCCESS; FAILURE with the reason if any
 *                    of that failed)
 *   preconditioning  where the controller planned it: the device's first bytes, written once
 *   running          its suite or job file through the library, progress.json every few seconds
 *   uploading        result.json (fio's JSON, its volume's entitlements and burst analysis)
 *   done | failed    progress.json's last state, member.log, then done.json, last of all
 *
 * It never throws for what happened to the study: the outcome says it, and done.json carries it.
 * Shutting the instance down afterwards is the caller's (the CLI's --shutdown).
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';

import { studyObjectKey, type MemberDone, type MemberStep } from '../../api/study-objects.js';
import { VolbenchError } from '../../errors.js';
import type { FioResult } from '../../fio-output/fio-result.js';
import { VERSION } from '../../version.js';
import { MemberLog } from './log.js';
import { MemberObjects } from './objects.js';
import { ProgressReporter } from './progress.js';
import { signalStack, type StackSignal } from './signal.js';
import { acceptSpec, checkSpecSha256, memberEntry } from './spec.js';
import { cloudOf, openTarget, precondition, prepareWorkload, runWorkload } from './workload.js';

export interface MemberAgentOptions {
  s3: S3Client;
  bucket: string;
  fleetId: string;
  label: string;
  /** The stack's StudySpecSha256: the only spec this member runs. */
  specSha256: string;
  /** Its data volume's block device (a file in tests). */
  device: string;
  /** vol-…, from the device's NVMe serial: the result names the volume it measured. */
  volumeId?: string;
  /** The bucket's own KMS key: objects are written SSE-KMS under it (else SSE-S3). */
  kmsKeyArn?: string;
  /** Where the one signal goes; none: no stack is told (tests, a member run by hand). */
  stack?: StackSignal;
  /** Aborted (SIGTERM at the expiry): the run stops, and what it measured is still written. */
  signal?: AbortSignal;
  /** progress.json at most this often while only the rates move (default 5000 ms). */
  progressEveryMs?: number;
  /** Each log line as it is made (the unit's journal). */
  echo?: (line: string) => void;
}

export interface MemberAgentOutcome {
  status: 'ok' | 'failed';
  /** As the CLI would exit: 0, 1 (a job's error or a failed gate), 2 (refused), 130 (interrupted). */
  exitCode: number;
  reason?: string;
  resultSha256?: string;
}

/** fio's JSON as the service stores it: a non-finite number is 0 (JSON has none). */
function resultText(result: FioResult): string {
  return `${JSON.stringify(result, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? 0 : value), 2)}\n`;
}

/** How a result ended, as `volbench suite` exits on it. */
function judged(result: FioResult): Pick<MemberAgentOutcome, 'status' | 'exitCode' | 'reason'> {
  const errors = result.volbench.jobs.filter((j, i) => j.error_message !== '' || (result.jobs[i]?.error ?? 0) !== 0);
  if (errors.length) return { status: 'failed', exitCode: 1, reason: errors.map((j) => `job ${j.jobname}: ${j.error_message || 'error'}`).join('; ') };
  if (result.volbench.jobs.some((j) => j.cancelled)) return { status: 'failed', exitCode: 130, reason: 'interrupted' };
  const failedGates = (result.volbench.assertions ?? []).filter((a) => !a.passed);
  return { status: 'ok', exitCode: failedGates.length ? 1 : 0 };
}

class Agent {
  readonly log: MemberLog;
  readonly objects: MemberObjects;
  readonly progress: ProgressReporter;
  step: MemberStep = 'booting';
  private signalled = false;

  constructor(readonly o: MemberAgentOptions) {
    this.log = new MemberLog(o.echo);
    this.objects = new MemberObjects(o.s3, o.bucket, o.fleetId, o.label, o.kmsKeyArn);
    this.progress = new ProgressReporter({
      label: o.label, everyMs: o.progressEveryMs, log: (line) => this.log.line(line), write: (body) => this.objects.put('progress', body),
    });
  }

  enter(step: MemberStep): void {
    this.step = step;
    this.log.line(`step: ${step}`);
    this.progress.enter(step);
  }

  /** The stack's one signal; a failed call is logged (the creation policy's timeout is the last word). */
  async signal(status: 'SUCCESS' | 'FAILURE', reason?: string): Promise<void> {
    if (!this.o.stack || this.signalled) return;
    this.signalled = true;
    try {
      await signalStack(this.o.stack, status, reason);
      this.log.line(`signalled ${status} to stack ${this.o.stack.stackName}`);
    } catch (err) {
      this.log.line(`signal ${status} to stack ${this.o.stack.stackName} not sent: ${(err as Error).message}`);
    }
  }

  /** Fetching to uploading; throws what stops it. */
  async study(): Promise<Pick<MemberAgentOutcome, 'status' | 'exitCode' | 'reason' | 'resultSha256'>> {
    const { o } = this;
    this.enter('fetching');
    const source = `s3://${o.bucket}/${studyObjectKey(o.fleetId, 'spec')}`;
    const spec = acceptSpec(await this.objects.specBytes(), { sha256: checkSpecSha256(o.specSha256), fleetId: o.fleetId, source });
    const entry = memberEntry(spec, o.label);
    this.log.line(`spec accepted (sha256 ${o.specSha256}): ${entry.suite !== undefined ? `suite ${entry.suite}` : 'a job file'} on ${entry.volume}` +
      `${entry.runtime ? `, runtime ${entry.runtime}` : ''}${entry.precondition_bytes ? `, preconditioning ${entry.precondition_bytes} bytes` : ''}`);
    const target = openTarget(o.device);
    const prepared = await prepareWorkload(entry, target, cloudOf(spec, entry, o.volumeId));
    await this.signal('SUCCESS');
    const hooks = {
      signal: o.signal,
      onProgress: (p: Parameters<ProgressReporter['progress']>[0]) => this.progress.progress(p),
      onTest: (e: Parameters<ProgressReporter['test']>[0]) => {
        this.log.line(`test ${e.test}/${e.tests}${e.loops > 1 ? `, loop ${e.loop}/${e.loops}` : ''}: ${e.jobs.join(', ')}`);
        this.progress.test(e);
      },
      onStage: (i: number, n: number, names: string[]) => {
        this.log.line(`stage ${i + 1}/${n}: ${names.join(', ')}`);
        this.progress.stage(i, n, names);
      },
    };
    if (entry.precondition_bytes) {
      this.enter('preconditioning');
      const pre = judged(await precondition(target, entry.precondition_bytes, hooks));
      if (pre.status !== 'ok') throw new VolbenchError('ETARGET', `precondition: ${pre.reason}`, { field: 'precondition_bytes' });
    }
    this.enter('running');
    const result = await runWorkload(prepared, hooks);
    this.enter('uploading');
    const text = resultText(result);
    const resultSha256 = createHash('sha256').update(text).digest('hex');
    await this.objects.put('result', text);
    this.log.line(`result.json written (${Buffer.byteLength(text)} bytes, sha256 ${resultSha256})`);
    return { ...judged(result), resultSha256 };
  }

  /** The last state, the log, then done.json. */
  async finish(outcome: MemberAgentOutcome): Promise<void> {
    this.enter(outcome.status === 'ok' ? 'done' : 'failed');
    await this.progress.flush();
    const done: MemberDone = {
      label: this.o.label, status: outcome.status, finished_at: new Date().toISOString(), exit_code: outcome.exitCode,
      ...(outcome.reason ? { reason: outcome.reason.slice(0, 2000) } : {}), ...(outcome.resultSha256 ? { result_sha256: outcome.resultSha256 } : {}),
    };
    this.log.line(`done: ${outcome.status}, exit ${outcome.exitCode}${outcome.reason ? `: ${outcome.reason}` : ''}`);
    await this.objects.put('log', this.log.text()).catch((err: Error) => this.log.line(`member.log not written: ${err.message}`));
    await this.objects.put('done', `${JSON.stringify(done)}\n`).catch((err: Error) => this.log.line(`done.json not written: ${err.message}`));
  }
}

/** Runs the member's part of the study; says how it ended (done.json says the same). */
export async function runMemberAgent(opts: MemberAgentOptions): Promise<MemberAgentOutcome> {
  // A label that names no member folder writes nothing at all: the one refusal that throws.
  const agent = new Agent(opts);
  agent.log.line(`volbench ${VERSION} member agent: fleet ${opts.fleetId}, member ${opts.label}, device ${opts.device}`);
  let outcome: MemberAgentOutcome;
  try {
    outcome = await agent.study();
  } catch (err) {
    const reason = `${agent.step}: ${(err as Error).message}`;
    outcome = { status: 'failed', exitCode: opts.signal?.aborted ? 130 : 2, reason };
    agent.log.line(`failed at ${reason}`);
    await agent.signal('FAILURE', reason);
  }
  await agent.finish(outcome);
  return outcome;
}
