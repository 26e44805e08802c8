-- After a scan without parallel workers: the setting again.
SET LOCAL max_parallel_workers_per_gather TO DEFAULT;
