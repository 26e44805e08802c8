-- One snapshot for a reader's whole life: every scan of a side sees the
-- same rows, so that side's windows are mutually consistent.
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
