import type { BlkioGroup } from './blkio.mjs';
import type { KernelLimits, ModelState, Scale, ThrottleSpec, Usage } from './throttle-model.mjs';

export interface ThrottleState extends ModelState {
  scale: Scale;
  kernel: KernelLimits;
  totals: Usage;
  elapsedS: number;
  ticks: number;
}
export class VolumeThrottle {
  constructor(options: { group: BlkioGroup; majMin: string; spec: ThrottleSpec; scale?: Scale; tickMs?: number });
  readonly scaledSpec: ThrottleSpec;
  start(): this;
  tick(): void;
  stop(): void;
  state(): ThrottleState;
}
