/**
 * The suites volbench ships. The workload of each is a plain fio job file in the package's
 * `suites/` directory (fio runs it too); this table holds only what a job file cannot say: how
 * many times the runner repeats each test, and what target the suite needs.
 */

/** What a suite can run on. */
export type SuiteTarget =
  /** A directory (--directory) or a file or block device (--filename). */
  | 'any'
  /** A whole block device given with --filename. */
  | 'block-device';

export interface SuiteDefinition {
  name: string;
  /** File name in `suites/`. */
  file: string;
  /** One line: what the suite measures. */
  title: string;
  /** Where the tests come from. */
  source: string;
  /** Default number of runs of each test; the result keeps the best. */
  loops: number;
  target: SuiteTarget;
}

export const SUITES: readonly SuiteDefinition[] = [
  {
    name: 'ars',
    file: 'ars.fio',
    title: '4k, 16x64k and 1m random writes, 60 s each, through the page cache with a final fsync',
    source: 'Ars Technica, "How fast are your disks? Find out the open source way, with fio" (2020)',
    loops: 1,
    target: 'any',
  },
  {
    name: 'kdiskmark',
    file: 'kdiskmark.fio',
    title: 'SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write, 1 GiB, 5 s, best of 5',
    source: 'KDiskMark / CrystalDiskMark "Standard" preset',
    loops: 5,
    target: 'any',
  },
  {
    name: 'kdiskmark-nvme',
    file: 'kdiskmark-nvme.fio',
    title: 'SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1, read and write, 1 GiB, 5 s, best of 5',
    source: 'KDiskMark / CrystalDiskMark "NVMe SSD" preset',
    loops: 5,
    target: 'any',
  },
  {
    name: 'aws-ssd',
    file: 'aws-ssd.fio',
    title: '16k random write, then read: direct, 16 jobs of 1 GiB, queue depth 16, 180 s each',
    source: 'AWS EC2 user guide, "Benchmark EBS volumes" (io1/SSD commands)',
    loops: 1,
    target: 'any',
  },
  {
    name: 'aws-hdd',
    file: 'aws-hdd.fio',
    title: '1 MiB sequential read, then write: direct, libaio, queue depth 8, 180 s each',
    source: 'AWS EC2 user guide, "Benchmark EBS volumes" (st1/sc1 commands)',
    loops: 1,
    target: 'any',
  },
  {
    name: 'initialize',
    file: 'initialize.fio',
    title: 'one sequential 1 MiB read of the whole device, queue depth 32 (initializes a restored EBS volume)',
    source: 'AWS EC2 user guide, "Initialize Amazon EBS volumes"',
    loops: 1,
    target: 'block-device',
  },
];
