/** Rates read + write together, as AWS states them. */
export interface Rates { iops?: number; bps?: number }
export interface Bucket {
  unit: 'ios' | 'bytes' | 'seconds';
  size: number;
  refillPerS: number;
  /** 0-1 of a full bucket at the start (default 1). */
  initial?: number;
}
export interface LimiterSpec {
  name: string;
  baseline: Rates;
  burst?: Rates;
  bucket?: Bucket;
  countedIoBytes?: number;
  smallIoCountsWhole?: boolean;
}
export interface ThrottleSpec { limiters: LimiterSpec[] }
export interface Scale { rate: number; time: number }
export interface DirectionUsage { bios: number; chargedBytes: number; trueBytes: number }
export interface Usage { read: DirectionUsage; write: DirectionUsage }
export interface KernelLimits { read: { iops: number; bps: number }; write: { iops: number; bps: number } }
export interface PhaseEvent { t: number; limiter: string; phase: 'burst' | 'baseline'; balance: number }
export interface ModelState {
  t: number;
  limiters: { name: string; phase: 'burst' | 'baseline'; balance: number; size: number | null }[];
  events: PhaseEvent[];
}
export function scaleSpec(spec: ThrottleSpec, scale?: Scale): ThrottleSpec;
export function secondsFromFull(limiter: LimiterSpec): number;
export class ThrottleModel {
  constructor(spec: ThrottleSpec);
  readonly spec: ThrottleSpec;
  step(dtS: number, usage: Usage): KernelLimits;
  kernelLimits(): KernelLimits;
  state(): ModelState;
}
