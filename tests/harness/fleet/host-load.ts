/**
 * How loaded this host was while the rehearsal ran, for study.json: the 1-minute load average
 * (/proc/loadavg) and the CPU time stolen by the hypervisor and spent busy (/proc/stat), sampled
 * every few seconds. A gated ratio that fell while the load stood far above the CPU count says
 * "host overloaded", not "wrong throttle".
 */
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';

interface CpuTimes { total: number; idle: number; steal: number }

export interface HostLoad {
  cpus: number;
  samples: number;
  seconds: number;
  load1: { min: number; mean: number; max: number };
  /** Shares of all CPU time over the run, in percent. */
  busy_pct: number;
  steal_pct: number;
  /** The worst few seconds' steal. */
  steal_pct_max: number;
}

function cpuTimes(): CpuTimes {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal };
}

const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export class HostLoadSampler {
  private readonly loads: number[] = [];
  private readonly first = cpuTimes();
  private last = this.first;
  private stealMax = 0;
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 5000) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  private sample(): void {
    this.loads.push(load1());
    const now = cpuTimes();
    const total = now.total - this.last.total;
    if (total > 0) this.stealMax = Math.max(this.stealMax, ((now.steal - this.last.steal) / total) * 100);
    this.last = now;
  }

  stop(): HostLoad {
    clearInterval(this.timer);
    this.sample();
    const total = this.last.total - this.first.total || 1;
    return {
      cpus: cpus().length,
      samples: this.loads.length,
      seconds: Math.round((Date.now() - this.started) / 1000),
      load1: { min: Math.min(...this.loads), mean: round(this.loads.reduce((a, b) => a + b, 0) / this.loads.length), max: Math.max(...this.loads) },
      busy_pct: round((1 - (this.last.idle - this.first.idle) / total) * 100, 1),
      steal_pct: round(((this.last.steal - this.first.steal) / total) * 100, 1),
      steal_pct_max: round(this.stealMax, 1),
    };
  }
}
