/**
 * The report stage's input: what ran (per job, its options and the raw results of its
 * instances) plus facts gathered around the run (disk statistics, target identity).
 */
import type { NativeEngineName, NativeJobResult } from '../engine/native-types.js';
import type { JobOptions } from '../jobspec/types.js';

/** One job section as planned: numjobs instances share its options and group. */
export interface ReportJob {
  jobname: string;
  groupid: number;
  options: JobOptions;
  /** The job's own options as written, for fio's "job options" echo. */
  ownOptions: Array<[name: string, value: string]>;
  /** One result per instance (numjobs), in instance order. */
  instances: NativeJobResult[];
  /** Index of the target (in `RunReportInput.targets`) this job ran on. */
  targetIndex: number;
  /** Per instance: the files it created or extended before its I/O. */
  layouts?: Array<Array<{ path: string; fromBytes: number; toBytes: number }>>;
  /** What the job did otherwise than its options say (fio's warnings), for `volbench.jobs[].notes`. */
  notes?: string[];
}

/** fio's disk_util entry (its schema is the document's: fio-result.ts). */
export type { DiskUtil } from './fio-result.js';
import type { DiskUtil } from './fio-result.js';

/** What volbench knows about a target beyond fio: reported under "volbench". */
export interface TargetIdentity {
  path: string;
  /** Kernel name of the block device ("nvme1n1", "loop0"), or null when none (tmpfs). */
  device: string | null;
  /** The whole disk when `device` is a partition. */
  disk: string | null;
  model: string | null;
  serial: string | null;
  /** AWS EBS volume id ("vol-0123…") read from an NVMe serial, when the device is EBS. */
  ebsVolumeId: string | null;
  vendor: string | null;
  sizeBytes: number;
  logicalBlockSize: number;
  physicalBlockSize: number;
  rotational: boolean | null;
  scheduler: string | null;
  filesystem: string | null;
  mountPoint: string | null;
  isBlockDevice: boolean;
  kernel: string;
  /** For a loop device (or a file on one): the file the loop device reads and writes. */
  backingFile?: string | null;
}

export interface RunReportInput {
  /** Wall clock at the start of the run, ms since epoch. */
  startedAtMs: number;
  /** "[global]" options as written, when the spec had a global section. */
  globalOptions?: Array<[name: string, value: string]>;
  jobs: ReportJob[];
  diskUtil: DiskUtil[];
  targets: TargetIdentity[];
  volbenchVersion: string;
  /**
   * The spec that ran as a fio job file (printJobFile), for `volbench.job_file`; null when one of
   * its values cannot be written in a job file. Absent: the key is left out.
   */
  jobFile?: string | null;
}

export type OutputFormat = 'json' | 'json+' | 'normal' | 'terse';

export type { NativeEngineName };
