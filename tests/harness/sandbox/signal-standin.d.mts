export interface SignalRecord {
  at: string;
  /** The member whose listener took the call (null: a listener for no member). */
  member: string | null;
  /** The stack as the call named it, and its id in moto. */
  stack: string;
  stackId: string;
  resource: string;
  status: 'SUCCESS' | 'FAILURE';
  uniqueId: string;
  /** What CloudFormation would show: "Received FAILURE signal with UniqueId ...". */
  reason: string;
}
export interface Listener { url: string; port: number; close(): Promise<void> }
export class SignalStandIn {
  /** holdUntilReady: stacks (by name) whose creation waits for their Ready signal, as CloudFormation's creation policy makes it. */
  constructor(options: { moto: string; holdUntilReady?: RegExp });
  listen(host: string, options?: { port?: number; member?: string | null }): Promise<Listener>;
  signals(stack?: string): SignalRecord[];
  waitForSignal(stack: string, resource: string, timeoutMs: number): Promise<SignalRecord | undefined>;
  close(): Promise<void>;
}
