/**
 * `volbench fleet --help`: what every subcommand takes, in one place (each subcommand's file
 * lists the flags it parses).
 */
import { defaultStateDir } from '../../fleet/state.js';

export const FLEET_USAGE = `Usage:
  volbench fleet plan    --volumes V --instance TYPE [--suite S] [--runtime T] [--no-precondition] [--region R] [--check-account]
  volbench fleet up      --volumes V --instance TYPE --bucket B [--allowed-cidr CIDR] [--max-cost USD] [--ttl T] [--yes]
  volbench fleet run     FLEET_ID [--suite S | --job FILE] [--assert EXPR ...] [--endpoint-map FILE] [--out DIR]
  volbench fleet report  FLEET_ID [--out DIR]
  volbench fleet down    FLEET_ID
  volbench fleet list
  volbench fleet compare --volumes V --instance TYPE --bucket B --out DIR [--keep] [--interactive] [--fleet-id ID] [--wait] [... as up and run]
  volbench fleet attach  FLEET_ID --bucket B [--out DIR] [--wait]
  volbench fleet status  FLEET_ID --bucket B
  volbench fleet reap    [--region R] [--bucket B] [--yes]

  --volumes V          TYPE[:SIZE][:iops=N][:throughput=MiB/s][:suite=S], comma-separated, e.g.
                       gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t:suite=aws-hdd
  --instance TYPE      the instance type (default m6i.large); one instance per volume
  --suite S            a shipped suite, or auto (default): each volume's media's suite from the
                       manifest (aws-ssd on SSD types, aws-hdd on HDD types); suite= in --volumes
                       wins; --job FILE runs a fio job file instead
  --runtime T          the suites' runtime in every test (fio's units: 60, 30s, 2m)
  --no-precondition    skip writing, before a suite that reads, what its read tests reach
                       (fleet plan states the time and cost it adds)
  --region R           default $AWS_REGION; credentials from the default chain, or --profile P
  --bucket B           S3 bucket for results, the fleet's state, the bundle and certificate;
                       run/report/down/list also find a fleet's state there (from any machine)
  --allowed-cidr CIDR  up, compare --interactive: who may reach the services (default this machine's
                       public address /32); an autonomous study's members take no inbound traffic
  --package FILE       the bundle for the instance type's architecture (npm run bundle -- --arch
                       x64|arm64; default bundles/volbench-VERSION-linux-ARCH.tar.gz of this volbench)
  --subnet ID          launch in this subnet (default: a default subnet of the default VPC)
  --instance-profile N use this existing instance profile (no IAM rights needed)
  --tag K=V            plan, up, compare (repeatable): a tag on every stack, instance and volume, at
                       creation (what a tag policy or SCP may require); not aws: or volbench: keys
  --no-public-ip       plan, up, compare: members get no public IPv4 address, whatever the subnet
                       maps; interactive members are then reached with --endpoint-map only
  --ebs-kms-key ARN    plan, up, compare: encrypt the members' volumes with this KMS key instead of
                       the account's default EBS key
  --check-account      plan: read the account as up does (the volumes' key, the vCPU and io1/io2
                       IOPS quotas) and refuse a plan it cannot hold; nothing is created
  --ttl T              the fleet's life (default: the plan's duration x 2 + 30m); at its end every
                       member shuts itself down and fleet reap deletes what is left; run --ttl T
                       extends a fleet to T from now
  --now TIME           reap and run: the clock, ISO-8601 (for tests; also VOLBENCH_NOW)
  --max-cost USD       refuse a study estimated above this (default 20) unless --yes
  --yes                up, compare: go ahead whatever the estimate; reap: delete what it lists
                       without asking (with no terminal and no --yes, reap deletes nothing)
  --endpoint-map FILE  JSON {label: url}: reach members through a tunnel or VPN
  --out DIR            results/<fleet-id>/<label>.json go here (default results)
  --state-dir DIR      where fleet state files are kept (default ${defaultStateDir()})
  --keep               compare: leave the fleet up (then: volbench fleet down FLEET_ID)
  --interactive        compare: drive the members over HTTPS from here (as up + run do), instead of
                       a study whose members run on their own (the default: docs/fleet.md)
  --fleet-id ID        compare: the study's id; one already in --bucket is resumed, not made again
  --wait               compare, attach: wait for a study another driver holds (its lease) instead
                       of exiting 2
  --cost volume|total  what a month and $ per 1,000 IOPS / per MiB/s cover: the volume (default),
                       or with one instance's share
  --cost-basis 730h|calendar  a month of 730 h (AWS's, default) or this month's real length
  --strict             plan, up, compare: refuse a plan with any finding (instance-baseline,
                       block-size, hdd-on-ssd-suite)
  --format table|json
`;
