/**
 * A fleet's plan: the volumes as listed, their labels and stacks, and the study's estimate from
 * dated prices (EC2 and EBS bill by the second: the monthly price prorated by the hours).
 */
import { describe, expect, it } from 'vitest';

import { fleetVolume, fleetVolumes, formatPlan, planFleet } from '../../src/fleet/index.js';

const parseFleetVolumes = (text: string) => fleetVolumes(text, undefined);
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

requires();

describe('--volumes', () => {
  it('reads type, size, IOPS and throughput, and labels each volume (a repeat gets -2)', () => {
    expect(parseFleetVolumes('gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t,gp3:500g,instance-store').map(fleetVolume)).toEqual([
      { label: 'gp3-500g', type: 'gp3', sizeGiB: 500 },
      { label: 'gp3-500g-6000iops-250mibs', type: 'gp3', sizeGiB: 500, iops: 6000, throughputMiBps: 250 },
      { label: 'io2-500g-16000iops', type: 'io2', sizeGiB: 500, iops: 16000 },
      { label: 'st1-2t', type: 'st1', sizeGiB: 2048 },
      { label: 'gp3-500g-2', type: 'gp3', sizeGiB: 500 },
      { label: 'instance-store', type: 'instance-store', sizeGiB: 0 },
    ]);
  });

  // The grammar of --volume, the same messages and codes; a fleet's own rule is placement.
  const refused: Array<[string, RegExp, string, string]> = [
    ['gp4:500g', /unknown volume type 'gp4'; did you mean 'gp3'/, '--volumes[0].type', 'EVOLUME_TYPE'],
    ['gp3', /gp3 needs a size/, '--volumes[0].size', 'EVOLUME_SYNTAX'],
    ['st1:2t:iops=500', /st1 has no provisioned IOPS/, '--volumes[0].iops', 'EVOLUME_LIMIT'],
    ['gp2:100g:throughput=250', /gp2 has no provisioned throughput/, '--volumes[0].throughput', 'EVOLUME_LIMIT'],
    ['io1:100g', /io1 needs provisioned IOPS/, '--volumes[0].iops', 'EVOLUME_LIMIT'],
    ['gp3:100g,gp3:1500m', /whole GiB/, '--volumes[1].size', 'EVOLUME_SYNTAX'],
    ['gp3:100g:iops=lots', /whole number/, '--volumes[0].iops', 'EVOLUME_SYNTAX'],
    ['instance-store:100g', /instance's store device whole/, '--volumes[0].size', 'EVOLUME_PLACEMENT'],
    ['pd-ssd:100g', /a fleet runs on EC2, and pd-ssd is a gcp volume/, '--volumes[0].type', 'EVOLUME_PLACEMENT'],
    ['gp3:100g,', /is empty/, '--volumes[1]', 'EVOLUME_SYNTAX'],
  ];
  for (const [text, message, field, code] of refused) {
    it(`refuses '${text}' with ${code}, naming ${field}`, () => {
      const err = errorOf(() => parseFleetVolumes(text));
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
      expect(err.field).toBe(field);
    });
  }

  it('refuses instance store on an instance type without one, before anything exists', () => {
    const err = errorOf(() => fleetVolumes('instance-store', 'm6i.large'));
    expect(err.code).toBe('EVOLUME_PLACEMENT');
    expect(err.field).toBe('--instance');
    expect(fleetVolumes('instance-store', 'i4i.large')[0].label).toBe('instance-store');
  });

  it("takes a member's own suite (suite=), and refuses one the package does not ship, naming it", () => {
    const volumes = fleetVolumes('gp3:500g,st1:2t:suite=aws-hdd', 'm6i.large');
    const plan = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1' });
    expect(plan.members.map((m) => m.suite)).toEqual(['aws-ssd', 'aws-hdd']);
    const ssd = planFleet({ volumes: fleetVolumes('gp3:500g,st1:2t:suite=aws-ssd', 'm6i.large'), instanceType: 'm6i.large', region: 'us-east-1', suite: 'aws-hdd' });
    expect(ssd.members.map((m) => m.suite)).toEqual(['aws-hdd', 'aws-ssd']);
    expect(plan.members[1].label).toBe('st1-2t');
    const err = errorOf(() => planFleet({ volumes: fleetVolumes('st1:2t:suite=aws-hhd', 'm6i.large'), instanceType: 'm6i.large', region: 'us-east-1' }));
    expect(err.field).toBe('--volumes[0].suite');
    expect(err.message).toMatch(/no suite named 'aws-hhd'/);
  });

  it('caps the list (at most 50 volumes) and its length', () => {
    expect(() => parseFleetVolumes(Array(51).fill('gp3:1g').join(','))).toThrow(/at most 50/);
    expect(() => parseFleetVolumes('gp3:1g'.repeat(1000))).toThrow(/longer than/);
  });
});

describe('planFleet', () => {
  const volumes = parseFleetVolumes('gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t');
  const plan = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1', suite: 'aws-ssd', fleetId: 'vb0123456789', precondition: false });

  it('prices each volume by the month: gp3 500 GiB with 6,000 IOPS and 250 MiB/s is $40 + $15 + $5', () => {
    expect(plan.members.map((m) => m.volumeMonthly?.usd)).toEqual([40, 60, 1102.5, 92.16]);
    for (const m of plan.members) expect(m.volumeMonthly).toMatchObject({ source: expect.stringMatching(/^https:\/\//), as_of: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });

  it('estimates the study: instance hours and prorated volume hours for start-up, the suite and teardown', () => {
    // aws-ssd: two 180 s tests; 15 min of start-up and 5 of teardown around them.
    expect(plan.workloadSeconds).toBe(360);
    expect(plan.hours).toBeCloseTo((900 + 360 + 300) / 3600, 6);
    // Each member also has a 16 GiB gp3 root volume ($1.28 a month) and a public IPv4 address ($0.005/h).
    expect(plan.rootVolumeMonthly?.usd).toBe(1.28);
    expect(plan.publicIpv4Hourly?.usd).toBe(0.005);
    const expected = 4 * (0.096 + 1.28 / 730 + 0.005) * plan.hours + (40 + 60 + 1102.5 + 92.16) * plan.hours / 730;
    expect(plan.estimatedUsd).toBeCloseTo(expected, 2);
    expect(formatPlan(plan)).toMatch(/and each: its gp3:16g root volume \(\$1\.28 a month, prorated\) and a public IPv4 address \(\$0\.005\/h/);
  });

  it("states when the fleet expires: the plan's duration twice plus 30 min, or --ttl", () => {
    expect(plan.ttlSec).toBe(Math.ceil(plan.hours * 3600 * 2 + 1800));
    expect(formatPlan(plan)).toContain(`expires ${(plan.ttlSec / 3600).toFixed(2)} h after fleet up (--ttl): everything is tagged volbench:expires`);
    const given = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1', suite: 'aws-ssd', precondition: false, ttlSec: 3 * 3600 });
    expect(formatPlan(given)).toContain('expires 3.00 h after fleet up');
  });

  it('--suite auto (the default): SSD types get aws-ssd, HDD types aws-hdd, from the manifest', () => {
    const auto = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1' });
    expect(auto.suite).toBe('auto');
    expect(auto.members.map((m) => m.suite)).toEqual(['aws-ssd', 'aws-ssd', 'aws-ssd', 'aws-hdd']);
    // The study lasts as long as its longest member: two 180 s tests, plus st1's precondition.
    expect(auto.workloadSeconds).toBeCloseTo(360 + auto.members[3].precondition!.seconds, 6);
  });

  it('preconditions what the read tests reach: aws-ssd\'s 1 GiB, aws-hdd\'s runtime at st1\'s 500 MiB/s burst', () => {
    const auto = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1' });
    const [gp3, , , st1] = auto.members;
    expect(gp3.precondition).toEqual({ bytes: 2 ** 30, seconds: 1024 / 125 });
    // 180 s at 500 MiB/s, under the device's 2 TiB; written at st1's 500 MiB/s.
    expect(st1.precondition).toEqual({ bytes: 180 * 500 * 2 ** 20, seconds: 180 });
    expect(auto.precondition!.seconds).toBe(180);
    expect(auto.precondition!.usd).toBeGreaterThan(0);
    expect(auto.precondition!.usd).toBeLessThan(auto.estimatedUsd!);
    expect(formatPlan(auto)).toMatch(/precondition .*st1-2t 88 GiB in 180 s; adds 3 min and \$0\.\d\d to the study/);
    // The suites' runtime moves the reach; --no-precondition drops it and its time.
    const short = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1', runtime: '20s' });
    expect(short.members[3].precondition!.bytes).toBe(20 * 500 * 2 ** 20);
    expect(short.workloadSeconds).toBeCloseTo(40 + 20, 6);
    const none = planFleet({ volumes, instanceType: 'm6i.large', region: 'us-east-1', precondition: false });
    expect(none.members.every((m) => m.precondition === undefined)).toBe(true);
    expect(none.precondition).toBeUndefined();
    expect(none.workloadSeconds).toBe(360);
  });

  it('names one stack per volume after the fleet and the label', () => {
    expect(plan.members.map((m) => m.stackName)).toEqual([
      'volbench-vb0123456789-gp3-500g', 'volbench-vb0123456789-gp3-500g-6000iops-250mibs',
      'volbench-vb0123456789-io2-500g-16000iops', 'volbench-vb0123456789-st1-2t',
    ]);
  });

  it('prints what will be created and what it costs, with the prices\' dates', () => {
    const text = formatPlan(plan);
    expect(text).toContain('| gp3-500g-6000iops-250mibs | gp3 | 500 GiB | 6000 | 250 | $60.00 |');
    expect(text).toMatch(/estimated cost of the study: \$\d+\.\d\d/);
    expect(text).toMatch(/as of \d{4}-\d{2}-\d{2}/);
  });

  it('says when the prices are another region\'s, and when the instance has none', () => {
    expect(planFleet({ volumes, instanceType: 'm6i.large', region: 'eu-west-1' }).warnings.join()).toMatch(/us-east-1's/);
    const unknown = planFleet({ volumes, instanceType: 'x9z.huge', region: 'us-east-1' });
    expect(unknown.estimatedUsd).toBeUndefined();
    expect(unknown.warnings.join()).toMatch(/no price known for x9z.huge/);
  });
});
