/**
 * fio's seeds for a job instance, for the draws the engine makes as fio makes them (offsets under
 * fio's random map, bssplit sizes, rwmix directions): fio 3.33 derives one seed per purpose from
 * randseed and the instance's number in the run (init.c setup_random_seeds), and with randrepeat
 * (its default) seeds the offsets from a constant times that number, whatever randseed says. With
 * randrepeat=0 and no randseed, fio seeds from the system's random source, and so does volbench.
 */
import { randomBytes } from 'node:crypto';

const MASK64 = (1n << 64n) - 1n;
const GOLDEN = 0x9e370001n;
const REPEAT_BLOCK_SEED = 0xb1899bedn;
/** fio's seed slots (fio.h FIO_RAND_*_OFF) that volbench draws from. */
const BS = 0;
const MIX = 4;
const FILE = 5;
const BLOCK = 6;
const SEQ_RAND = 10;
const POISSON = 15;
const ZONE = 16;
const POISSON2 = 17;
const POISSON3 = 18;
const LAST = POISSON3;

export interface FioSeeds {
  /** bssplit sizes, per direction. */
  bs: [bigint, bigint, bigint];
  /** rwmix: the direction of each I/O of a mixed job. */
  mix: bigint;
  /** file_service_type=random: the file of each turn. */
  file: bigint;
  /** Offsets. */
  block: bigint;
  /** percentage_random's draw of random or sequential (fio seeds every direction's alike). */
  seqRand: bigint;
  /** random_distribution=zoned's draw of a zone. */
  zone: bigint;
  /** rate_process=poisson's gaps, per direction. */
  poisson: [bigint, bigint, bigint];
}

/**
 * `threadNumber`: the instance's place in the run, from 1, as fio numbers its threads (jobs in
 * order, each job's numjobs instances together). `verify`: fio seeds writes' sizes as reads'.
 */
export function fioSeeds(randseed: bigint, randrepeat: boolean, randseedGiven: boolean, threadNumber: number, verify: boolean): FioSeeds {
  const n = BigInt(threadNumber);
  const slots: bigint[] = [];
  if (!randrepeat && !randseedGiven) {
    for (let i = 0; i <= LAST; i++) slots.push(randomBytes(8).readBigUInt64LE());
  } else {
    let seed = randseed & MASK64;
    for (let i = 0; i < 4; i++) seed = (seed * GOLDEN) & MASK64;
    for (let i = 0; i <= LAST; i++) {
      slots.push((seed * n + BigInt(i)) & MASK64);
      seed = (seed * GOLDEN) & MASK64;
    }
    if (randrepeat) slots[BLOCK] = (REPEAT_BLOCK_SEED * n) & MASK64;
  }
  const write = verify ? slots[BS] : slots[BS + 1];
  return {
    bs: [slots[BS], write, slots[BS + 2]], mix: slots[MIX], file: slots[FILE], block: slots[BLOCK], seqRand: slots[SEQ_RAND],
    zone: slots[ZONE], poisson: [slots[POISSON], slots[POISSON2], slots[POISSON3]],
  };
}
