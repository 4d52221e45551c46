// Small helpers of the benchmark scripts.
import { execFileSync } from 'node:child_process';
import { cpus, release } from 'node:os';

export function parseArgs(argv) {
  const opts = { jobs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.quick = true;
    else if (a === '--rounds') opts.rounds = Number(argv[++i]);
    else if (a === '--runtime') opts.runtime = Number(argv[++i]);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}; flags: --quick, --rounds N, --runtime S`);
    else opts.jobs.push(a);
  }
  return opts;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function fmt(v) {
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

export function table(rows) {
  const head = ['job', 'metric', 'fio median', 'volbench median', 'ratio', 'fio min–max', 'volbench min–max'];
  const body = rows.map((r) => [
    r.job, r.metric, fmt(r.fio), fmt(r.volbench), r.ratio.toFixed(3),
    `${fmt(r.fioRange[0])}–${fmt(r.fioRange[1])}`, `${fmt(r.vbRange[0])}–${fmt(r.vbRange[1])}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |\n`;
  return line(head) + line(widths.map((w) => '-'.repeat(w))) + body.map(line).join('');
}

export function machineInfo() {
  let fio = 'fio not installed';
  try {
    fio = execFileSync('fio', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // reported as missing
  }
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, kernel: release(), fio, node: process.version };
}
