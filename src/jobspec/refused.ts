/**
 * fio options volbench refuses with a reason of their own, and what to use instead: the
 * `accepted` of their error, where the list of every supported option would say nothing.
 */
export interface Refusal {
  why: string;
  accepted: string;
}

export const REFUSED_OPTIONS: Readonly<Record<string, Refusal>> = {
  wait_for: {
    why: 'a job that waits for a named job',
    accepted: 'stonewall (alias wait_for_previous) or new_group: a job after a stonewall starts once every job before it has ended',
  },
  openfiles: {
    why: 'fewer files open at once than a job has',
    accepted: 'no openfiles: every file of a job is open for its whole run, as fio has them by default (openfiles = nrfiles)',
  },
};
