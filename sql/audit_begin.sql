-- One transaction per recorded run (and per migration): a failed run
-- records nothing.
BEGIN ISOLATION LEVEL READ COMMITTED;
