-- Serialises runs of the same load (session lock: released when the run
-- ends or its process dies).  $1 = lock name
SELECT pg_advisory_lock(hashtext($1));
