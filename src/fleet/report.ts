/**
 * The fleet's price/performance table in Markdown: one row per volume, its monthly price, and
 * each job's headline (IOPS for small blocks, MiB/s for large ones), with $ per 1,000 IOPS and
 * per MiB/s of the best job.
 */
import type { FleetState } from './state.js';
import type { MemberResult } from './run.js';

interface Dir { iops?: number; bw_bytes?: number; total_ios?: number }
interface Job { jobname?: string; read?: Dir; write?: Dir; error?: number }

function headline(job: Job): { iops: number; mibps: number } {
  const dirs = [job.read, job.write].filter((d): d is Dir => Boolean(d?.total_ios));
  return {
    iops: dirs.reduce((s, d) => s + (d.iops ?? 0), 0),
    mibps: dirs.reduce((s, d) => s + (d.bw_bytes ?? 0), 0) / 1048576,
  };
}

const num = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function fleetTable(state: FleetState, results: MemberResult[]): string {
  const jobNames: string[] = [];
  for (const r of results) {
    for (const job of ((r.result?.jobs as Job[] | undefined) ?? [])) if (job.jobname && !jobNames.includes(job.jobname)) jobNames.push(job.jobname);
  }
  const head = ['volume', 'type', 'size', '$/month', ...jobNames, '$ per 1k IOPS', '$ per MiB/s', 'status'];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const member of state.plan.members) {
    const r = results.find((x) => x.label === member.label);
    const jobs = (r?.result?.jobs as Job[] | undefined) ?? [];
    const price = member.volumeMonthly?.usd;
    let bestIops = 0;
    let bestMibps = 0;
    const cells = jobNames.map((name) => {
      const job = jobs.find((j) => j.jobname === name);
      if (!job) return '';
      if (job.error) return `error ${job.error}`;
      const h = headline(job);
      bestIops = Math.max(bestIops, h.iops);
      bestMibps = Math.max(bestMibps, h.mibps);
      return `${num(h.iops)} IOPS, ${num(h.mibps, 1)} MiB/s`;
    });
    const v = member.volume;
    const status = !r ? 'not run' : r.status === 'finished' ? (r.gate ? `finished, gate ${r.gate}` : 'finished') : `${r.status}${r.error ? `: ${r.error}` : ''}`;
    lines.push(`| ${[
      member.label, v.type, v.sizeGiB ? `${v.sizeGiB} GiB` : 'instance', price === undefined ? '' : `$${price.toFixed(2)}`, ...cells,
      price !== undefined && bestIops ? `$${((price * 1000) / bestIops).toFixed(2)}` : '',
      price !== undefined && bestMibps ? `$${(price / bestMibps).toFixed(2)}` : '',
      status,
    ].join(' | ')} |`);
  }
  const asOf = state.plan.members.find((m) => m.volumeMonthly)?.volumeMonthly;
  if (asOf) lines.push('', `Prices: ${asOf.source}, as of ${asOf.as_of}${asOf.region_used ? ` (${asOf.region_used}'s)` : ''}.`);
  return `${lines.join('\n')}\n`;
}
