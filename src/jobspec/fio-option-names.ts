/**
 * Every job option name fio 3.33 knows, generated once from fio's source at tag fio-3.33:
 * the `.name` and `.alias` of each entry of `fio_options[]` in options.c, and of each
 * `struct fio_option options[]` table in engines/*.c (ioengine options). Names volbench supports
 * are in this list too; the lookup consults the supported table first, so a name found only here
 * is one fio has and volbench does not support yet.
 */

/** options.c `fio_options[]`, names and aliases, in table order. */
export const FIO_JOB_OPTION_NAMES: readonly string[] = [
  'description', 'name', 'wait_for', 'filename', 'directory', 'filename_format', 'unique_filename',
  'lockfile', 'opendir', 'rw', 'readwrite', 'rw_sequencer', 'ioengine', 'iodepth', 'iodepth_batch',
  'iodepth_batch_submit', 'iodepth_batch_complete_min', 'iodepth_batch_complete',
  'iodepth_batch_complete_max', 'iodepth_low', 'serialize_overlap', 'io_submit_mode', 'size',
  'io_size', 'io_limit', 'fill_device', 'fill_fs', 'filesize', 'file_append', 'offset',
  'fileoffset', 'offset_align', 'offset_increment', 'number_ios', 'bs', 'blocksize', 'ba',
  'blockalign', 'bsrange', 'blocksize_range', 'bssplit', 'bs_unaligned', 'blocksize_unaligned',
  'bs_is_seq_rand', 'randrepeat', 'randseed', 'norandommap', 'softrandommap', 'random_generator',
  'random_distribution', 'percentage_random', 'percentage_sequential', 'allrandrepeat', 'nrfiles',
  'nr_files', 'openfiles', 'file_service_type', 'fallocate', 'fadvise_hint', 'fsync', 'fdatasync',
  'write_barrier', 'sync_file_range', 'direct', 'atomic', 'buffered', 'overwrite', 'loops',
  'numjobs', 'startdelay', 'runtime', 'timeout', 'time_based', 'verify_only', 'ramp_time',
  'clocksource', 'mem', 'iomem', 'iomem_align', 'mem_align', 'verify', 'do_verify', 'verifysort',
  'verifysort_nr', 'verify_interval', 'verify_offset', 'verify_pattern', 'verify_fatal',
  'verify_dump', 'verify_async', 'verify_backlog', 'verify_backlog_batch', 'verify_async_cpus',
  'experimental_verify', 'verify_state_load', 'verify_state_save', 'trim_percentage',
  'trim_verify_zero', 'trim_backlog', 'trim_backlog_batch', 'write_iolog', 'read_iolog',
  'read_iolog_chunked', 'replay_no_stall', 'replay_redirect', 'replay_scale', 'replay_align',
  'replay_time_scale', 'replay_skip', 'merge_blktrace_file', 'merge_blktrace_scalars',
  'merge_blktrace_iters', 'exec_prerun', 'exec_postrun', 'ioscheduler', 'zonemode', 'zonesize',
  'zonecapacity', 'zonerange', 'zoneskip', 'read_beyond_wp', 'max_open_zones',
  'job_max_open_zones', 'ignore_zone_limits', 'zone_reset_threshold', 'zone_reset_frequency',
  'lockmem', 'rwmixread', 'rwmixwrite', 'rwmixcycle', 'nice', 'prio', 'prioclass', 'thinktime',
  'thinktime_spin', 'thinktime_blocks', 'thinktime_blocks_type', 'thinktime_iotime', 'rate',
  'rate_min', 'ratemin', 'rate_iops', 'rate_iops_min', 'rate_process', 'rate_cycle', 'ratecycle',
  'rate_ignore_thinktime', 'max_latency', 'latency_target', 'latency_window', 'latency_percentile',
  'latency_run', 'invalidate', 'sync', 'write_hint', 'create_serialize', 'create_fsync',
  'create_on_open', 'create_only', 'allow_file_create', 'allow_mounted_write', 'pre_read',
  'cpumask', 'cpus_allowed', 'cpus_allowed_policy', 'numa_cpu_nodes', 'numa_mem_policy',
  'gpu_dev_id', 'end_fsync', 'fsync_on_close', 'unlink', 'unlink_each_loop', 'exitall',
  'exit_what', 'exitall_on_error', 'stonewall', 'wait_for_previous', 'new_group', 'thread',
  'per_job_logs', 'write_bw_log', 'write_lat_log', 'write_iops_log', 'log_entries', 'log_avg_msec',
  'log_hist_msec', 'log_hist_coarseness', 'write_hist_log', 'log_max_value', 'log_offset',
  'log_prio', 'log_compression', 'log_compression_cpus', 'log_store_compressed', 'log_unix_epoch',
  'log_alternate_epoch', 'log_alternate_epoch_clock_id', 'block_error_percentiles', 'bwavgtime',
  'iopsavgtime', 'group_reporting', 'stats', 'zero_buffers', 'refill_buffers', 'scramble_buffers',
  'buffer_pattern', 'buffer_compress_percentage', 'buffer_compress_chunk', 'dedupe_percentage',
  'dedupe_global', 'dedupe_mode', 'dedupe_working_set_percentage', 'clat_percentiles',
  'lat_percentiles', 'slat_percentiles', 'percentile_list', 'significant_figures', 'disk_util',
  'gtod_reduce', 'disable_lat', 'disable_clat', 'disable_slat', 'disable_bw_measurement',
  'disable_bw', 'gtod_cpu', 'unified_rw_reporting', 'continue_on_error', 'ignore_error',
  'error_dump', 'profile', 'cgroup', 'cgroup_nodelete', 'cgroup_weight', 'uid', 'gid', 'kb_base',
  'unit_base', 'hugepage-size', 'flow_id', 'flow', 'flow_watermark', 'flow_sleep', 'steadystate',
  'ss', 'steadystate_duration', 'ss_dur', 'steadystate_ramp_time', 'ss_ramp',
];

/** engines/*.c option tables (minus names already above), in file order. */
export const FIO_ENGINE_OPTION_NAMES: readonly string[] = [
  'cpuload', 'cpumode', 'cpuchunks', 'exit_on_io_done', 'pool', 'cont', 'chunk_size',
  'object_class', 'svcl', 'donorname', 'inplace', 'program', 'arguments', 'grace_time',
  'std_redirect', 'stat_type', 'volume', 'brick', 'single-instance', 'https', 'http_host',
  'http_user', 'http_pass', 'http_s3_key', 'http_s3_keyid', 'http_swift_auth_token',
  'http_s3_region', 'http_s3_sse_customer_key', 'http_s3_sse_customer_algorithm',
  'http_s3_storage_class', 'http_mode', 'http_verbose', 'hipri', 'cmdprio_percentage',
  'cmdprio_class', 'cmdprio', 'cmdprio_bssplit', 'fixedbufs', 'registerfiles', 'sqthread_poll',
  'sqthread_poll_cpu', 'nonvectored', 'uncached', 'nowait', 'force_async', 'cmd_type',
  'userspace_reap', 'gpu_dev_ids', 'cuda_io', 'namenode', 'hostname', 'port', 'hdfsdirectory',
  'chunck_size', 'single_instance', 'hdfs_use_direct', 'initiator', 'serverip',
  'direct_write_to_pmem', 'busy_wait_polling', 'thp', 'skip_bad', 'uri', 'protocol', 'proto',
  'nodelay', 'listen', 'pingpong', 'interface', 'ttl', 'window_size', 'mss', 'nfs_url',
  'clustername', 'clientname', 'conf', 'busy_poll', 'touch_objects', 'rbdname', 'bindname', 'verb',
  'readfua', 'writefua', 'sg_write_mode', 'stream_id', 'dummy', 'hipri_percentage',
  'no_completion_thread', 'xnvme_be', 'xnvme_async', 'xnvme_sync', 'xnvme_admin', 'xnvme_dev_nsid',
  'xnvme_iovec',
];
