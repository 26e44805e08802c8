-- Whether the server keeps the commit time of every transaction
-- (track_commit_timestamp = on): the diagnosis of late commits and
-- reckon lateness read them.
SELECT pg_catalog.current_setting('track_commit_timestamp') = 'on';
