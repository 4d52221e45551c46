/**
 * The one error class the library throws. `code` is a stable string a caller can switch on;
 * native failures also carry the errno and the syscall that failed.
 */
export type VolbenchErrorCode =
  /** An option name volbench and fio do not know. */
  | 'EUNKNOWN_OPTION'
  /** An option fio has that volbench does not support yet. */
  | 'EUNSUPPORTED_OPTION'
  /** A value that does not parse or is out of range. */
  | 'EINVALID_VALUE'
  /** A spec whose shape is wrong (no jobs, a job without a name, ...). */
  | 'EINVALID_SPEC'
  /** Options that contradict each other or the target. */
  | 'EINVALID_PLAN'
  /** The target cannot be used: missing, too small, unreadable, misaligned. */
  | 'ETARGET'
  /** Writing to a block device without allow_block_write, or to a mounted one. */
  | 'EUNSAFE_TARGET'
  /** A command-line flag or argument that is not understood. */
  | 'EINVALID_ARGS'
  /** A job file that cannot be read or parsed. */
  | 'EJOBFILE'
  /** The native engine reported a failure outside a job's I/O. */
  | 'ENATIVE'
  /** The run goes over a limit its caller set (runtime, size, instances). */
  | 'ELIMIT_EXCEEDED'
  /** The run was cancelled before it started. */
  | 'ECANCELLED'
  /**
   * The target's root has calls that never returned (I/O of a job given up on, a probe past its
   * deadline), or the process holds as many such stuck threads as it may: try again once they return.
   */
  | 'ESTUCK'
  /** A cloud provider's API refused or failed: credentials, a permission, a stack that did not create. */
  | 'ECLOUD'
  /** A volume's text or JSON is not a volume: TYPE[:SIZE][:key=value]…, or {type, size_gib, ...}. */
  | 'EVOLUME_SYNTAX'
  /** A volume type the catalog does not have. */
  | 'EVOLUME_TYPE'
  /** A size, IOPS or throughput the volume's type does not allow (or needs and was not given). */
  | 'EVOLUME_LIMIT'
  /** A volume and an instance type that do not go together (instance store, another provider's volume). */
  | 'EVOLUME_PLACEMENT'
  /** A TLS peer whose certificate is not the one pinned (nothing was sent to it). */
  | 'ETLS'
  /**
   * A fleet the account or region cannot hold as asked, found before anything was created: no
   * default VPC and no --subnet, an instance type its zone does not offer, an expired fleet.
   */
  | 'EPREFLIGHT'
  /**
   * A fleet's state file, or its stacks, say what volbench did not make: a state that names
   * another bucket, stack or secret, a label that is no volume label, an output that is no URL.
   * Nothing is done on its word.
   */
  | 'EFLEET_STATE'
  /**
   * A study another driver holds the lease of (its holder and the lease's expiry are named): it
   * is being driven already; wait for the lease, or let that driver finish.
   */
  | 'ESTUDY_LEASED';

export interface VolbenchErrorDetails {
  /** Path of the failing field in the spec, e.g. `jobs[0].bs`. */
  field?: string;
  /** What the field accepts, in words. */
  accepted?: string;
  errno?: number;
  syscall?: string;
  path?: string;
  cause?: unknown;
}

export class VolbenchError extends Error {
  readonly code: VolbenchErrorCode;
  readonly field?: string;
  readonly accepted?: string;
  readonly errno?: number;
  readonly syscall?: string;
  readonly path?: string;

  constructor(code: VolbenchErrorCode, message: string, details: VolbenchErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'VolbenchError';
    this.code = code;
    if (details.field !== undefined) this.field = details.field;
    if (details.accepted !== undefined) this.accepted = details.accepted;
    if (details.errno !== undefined) this.errno = details.errno;
    if (details.syscall !== undefined) this.syscall = details.syscall;
    if (details.path !== undefined) this.path = details.path;
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { code: this.code, message: this.message };
    for (const key of ['field', 'accepted', 'errno', 'syscall', 'path'] as const) {
      if (this[key] !== undefined) out[key] = this[key];
    }
    return out;
  }
}
