import { z } from 'zod';

import { named } from './registry.js';

export const targetSchema = named(
  'Target',
  z.object({
    root: z.string().describe('The configured root (--target-root)'),
    kind: z.enum(['directory', 'block_device']),
    allow_block_write: z.boolean().describe('Runs may write the block device (--allow-block-write)'),
    queue: z.string().describe('Runs sharing this key (one physical device) run one at a time'),
    device: z
      .object({
        name: z.string().describe('Kernel name: nvme1n1, loop0, vda1'),
        disk: z.string().nullable().describe('Whole disk when name is a partition'),
        size_bytes: z.number().nullable(),
        logical_block_size: z.int(),
        physical_block_size: z.int(),
        rotational: z.boolean().nullable(),
        model: z.string().nullable(),
        serial: z.string().nullable(),
        vendor: z.string().nullable(),
        scheduler: z.string().nullable(),
        ebs_volume_id: z.string().nullable().describe('vol-…, read from the NVMe serial on AWS EBS'),
      })
      .nullable()
      .describe('The block device behind the root; null on tmpfs and other device-less filesystems'),
    filesystem: z.string().nullable(),
    mount_point: z.string().nullable(),
    free_bytes: z.number().nullable().describe('Free space for files under a directory root'),
    queued: z.int(),
    running: z.int(),
  }),
);

export const targetListSchema = named('TargetList', z.object({ targets: z.array(targetSchema) }));

export type TargetBody = z.infer<typeof targetSchema>;
