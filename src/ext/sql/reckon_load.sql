-- The reckon extension in the test database: CREATE EXTENSION when the
-- server's directories hold this build, else this build's module by its path
-- (RK_EXT_LOAD, the reckon-load.sql of `make ext`; tests/harness/ext-check.sh
-- decides).  The other tests run in the same database after this one.
\set ECHO none
SET client_min_messages = warning;
\getenv rk_ext_load RK_EXT_LOAD
\if :{?rk_ext_load}
\i :rk_ext_load
\else
CREATE EXTENSION reckon;
\endif
RESET client_min_messages;
\set ECHO all
-- the functions the extension made, however it was made
SELECT count(*) AS functions FROM pg_proc WHERE proname LIKE 'reckon\_%';
