// The jobs the harness runs, each with the same fio options for both tools. Targets are made
// by bench/targets.mjs; `{file}`, `{loop}` and `{disk}` in an argument are replaced by them.
// `{irqcpu}` is the CPU taking the disk's interrupts (an argument holding it is left out when
// that cannot be told): at QD1 where the job thread runs relative to it moves latency by 40%
// for either tool, so both are pinned there.

const common = ['--direct=1', '--time_based', '--group_reporting'];

export const JOBS = [
  {
    id: 'a-randread-shm-iouring-qd32',
    what: 'engine-bound: 4k randread QD32 io_uring on a /dev/shm file',
    target: 'shm',
    args: ['--name=a', '--filename={file}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=io_uring', ...common],
  },
  {
    id: 'b-randread-loop-iouring-qd32',
    what: 'block layer: 4k randread QD32 io_uring on a loop device over tmpfs',
    target: 'loop',
    args: ['--name=b', '--filename={loop}', '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=io_uring', ...common],
  },
  {
    id: 'c-randwrite-loop-libaio-qd32',
    what: '4k randwrite QD32 libaio on the loop device',
    target: 'loop',
    writesBlockDevice: true,
    args: ['--name=c', '--filename={loop}', '--rw=randwrite', '--bs=4k', '--iodepth=32', '--ioengine=libaio', ...common],
  },
  {
    id: 'd1-randread-disk-psync-qd1',
    what: 'latency: 4k randread QD1 psync on a file on the real disk',
    target: 'disk',
    latency: true,
    args: ['--name=d1', '--filename={disk}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=1', '--ioengine=psync', '--cpus_allowed={irqcpu}', ...common],
  },
  {
    id: 'd2-randread-disk-iouring-qd1',
    what: 'latency: 4k randread QD1 io_uring on a file on the real disk',
    target: 'disk',
    latency: true,
    args: ['--name=d2', '--filename={disk}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=1', '--ioengine=io_uring', '--cpus_allowed={irqcpu}', ...common],
  },
  {
    id: 'e1-read-disk-1m-qd8',
    disk: true,
    what: 'bandwidth: 1 MiB sequential read QD8 on the real disk',
    target: 'disk',
    args: ['--name=e1', '--filename={disk}', '--size=1g', '--rw=read', '--bs=1m', '--iodepth=8', '--ioengine=io_uring', ...common],
  },
  {
    id: 'e2-write-disk-1m-qd8',
    disk: true,
    what: 'bandwidth: 1 MiB sequential write QD8 on the real disk',
    target: 'disk',
    args: ['--name=e2', '--filename={disk}', '--size=1g', '--rw=write', '--bs=1m', '--iodepth=8', '--ioengine=io_uring', ...common],
  },
  // At depth on the real disk: where the order of submissions and reaps shows (a tool that
  // submits in bursts keeps fewer I/Os at the device), and where merging shows in the request
  // sizes the disk sees (the `disk KiB/req` metric, from /proc/diskstats).
  {
    id: 'h-randread-disk-libaio-qd8',
    what: '4k randread QD8 libaio on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=8', '--ioengine=libaio', ...common],
  },
  {
    id: 'h-randread-disk-libaio-qd32',
    what: '4k randread QD32 libaio on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=libaio', ...common],
  },
  {
    id: 'h-randwrite-disk-libaio-qd8',
    what: '4k randwrite QD8 libaio on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randwrite', '--bs=4k', '--iodepth=8', '--ioengine=libaio', ...common],
  },
  {
    id: 'h-randwrite-disk-libaio-qd32',
    what: '4k randwrite QD32 libaio on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randwrite', '--bs=4k', '--iodepth=32', '--ioengine=libaio', ...common],
  },
  {
    id: 'h-randread-disk-iouring-qd8',
    what: '4k randread QD8 io_uring on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=8', '--ioengine=io_uring', ...common],
  },
  {
    id: 'h-randread-disk-iouring-qd32',
    what: '4k randread QD32 io_uring on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=io_uring', ...common],
  },
  {
    id: 'h-randwrite-disk-iouring-qd8',
    what: '4k randwrite QD8 io_uring on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randwrite', '--bs=4k', '--iodepth=8', '--ioengine=io_uring', ...common],
  },
  {
    id: 'h-randwrite-disk-iouring-qd32',
    what: '4k randwrite QD32 io_uring on a file on the real disk',
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=randwrite', '--bs=4k', '--iodepth=32', '--ioengine=io_uring', ...common],
  },
  {
    id: 'h-read-disk-1m-libaio-qd8',
    what: "AWS's HDD job: 1 MiB sequential read QD8 libaio on the real disk",
    target: 'disk',
    disk: true,
    args: ['--name=h', '--filename={disk}', '--size=1g', '--rw=read', '--bs=1m', '--iodepth=8', '--ioengine=libaio', ...common],
  },
  {
    id: 'f-randread-shm-nj2-qd16',
    what: 'scale: numjobs=2 iodepth=16 4k randread io_uring on tmpfs',
    target: 'shm',
    args: ['--name=f', '--filename={file}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=16', '--numjobs=2', '--ioengine=io_uring', ...common],
  },
  {
    id: 'g-null-randread-qd32',
    what: 'engine ceiling: null engine 4k randread QD32, full latency statistics',
    target: 'none',
    args: ['--name=g', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=null', '--time_based', '--group_reporting'],
  },
  // Pacing: rates and think time, where the tools must wait the same (rates compare, not
  // speeds). Run only when named (`npm run bench -- p`): each is as long as a timed job.
  {
    id: 'p-rate-iops-randrw-70',
    what: 'rate_iops=300 on randrw rwmixread=70: 300 reads/s and 300 writes/s',
    target: 'shm',
    pacing: true,
    args: ['--name=p', '--filename={file}', '--size=1g', '--rw=randrw', '--rwmixread=70', '--rate_iops=300', '--bs=4k', '--ioengine=psync', '--time_based'],
  },
  {
    id: 'p-rate-bw-randrw-70',
    what: 'rate=1m,512k on randrw rwmixread=70 at QD4 libaio',
    target: 'shm',
    pacing: true,
    args: ['--name=p', '--filename={file}', '--size=1g', '--rw=randrw', '--rwmixread=70', '--rate=1m,512k', '--bs=4k', '--iodepth=4', '--ioengine=libaio', '--direct=1', '--time_based'],
  },
  {
    id: 'p-thinktime-1ms-psync',
    what: 'thinktime=1ms after each 4k read, psync',
    target: 'shm',
    pacing: true,
    args: ['--name=p', '--filename={file}', '--size=1g', '--rw=randread', '--bs=4k', '--thinktime=1ms', '--ioengine=psync', '--time_based'],
  },
  {
    id: 'p-thinktime-1ms-iouring',
    what: 'thinktime=1ms after each 4k read, io_uring QD1',
    target: 'shm',
    pacing: true,
    args: ['--name=p', '--filename={file}', '--size=1g', '--rw=randread', '--bs=4k', '--thinktime=1ms', '--ioengine=io_uring', '--direct=1', '--time_based'],
  },
  {
    id: 'p-thinktime-100us-psync',
    what: 'thinktime=100us after each 4k read, psync (the sleep is mostly the spun tail)',
    target: 'shm',
    pacing: true,
    args: ['--name=p', '--filename={file}', '--size=1g', '--rw=randread', '--bs=4k', '--thinktime=100us', '--ioengine=psync', '--time_based'],
  },
  {
    id: 'p-thinktime-blocks-libaio-qd8',
    what: 'thinktime=500us every 8 blocks at QD8 libaio',
    target: 'shm',
    pacing: true,
    args: ['--name=p', '--filename={file}', '--size=1g', '--rw=randread', '--bs=4k', '--iodepth=8', '--thinktime=500us', '--thinktime_blocks=8', '--ioengine=libaio', '--direct=1', '--time_based'],
  },
];
