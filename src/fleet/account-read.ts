/**
 * What reading a company account finds before a fleet is made (volume-key.ts, quotas.ts): lines
 * to say, warnings (a read the caller may not make is a warning, never a refusal: the plan is
 * then not vouched for), and refusals, each with the flag to change. One AWS read that may be
 * refused is `advisory`: its answer, or why there is none.
 */
import { deniedError } from '../cloud/aws-call.js';

export interface AccountFinding {
  /** What the account says, in the plan's words. */
  lines: string[];
  warnings: string[];
  refusals: Array<{ message: string; field: string; accepted: string }>;
}

export const emptyFinding = (): AccountFinding => ({ lines: [], warnings: [], refusals: [] });

export function mergeFindings(...all: AccountFinding[]): AccountFinding {
  return { lines: all.flatMap((f) => f.lines), warnings: all.flatMap((f) => f.warnings), refusals: all.flatMap((f) => f.refusals) };
}

export type Advisory<T> = { ok: T } | { denied: string } | { failed: string; name: string };

/** One read of the account: its answer, refused (an IAM or SCP deny), or failed, never thrown. */
export async function advisory<T>(call: () => Promise<T>): Promise<Advisory<T>> {
  try {
    return { ok: await call() };
  } catch (err) {
    const e = err as Error;
    if (deniedError(err)) return { denied: e.message ?? e.name };
    return { failed: e.message || e.name, name: e.name ?? 'Error' };
  }
}

/** Why an advisory read has no answer, as a warning names it. */
export function whyNot(action: string, r: { denied: string } | { failed: string }): string {
  return 'denied' in r ? `${action} was refused (${r.denied.slice(0, 200)})` : `${action} failed (${r.failed.slice(0, 200)})`;
}

export const grouped = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
