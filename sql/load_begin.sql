-- Opens a read-write transaction (the write of a load, the lab's sessions).
BEGIN;
