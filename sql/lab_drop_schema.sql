-- The lab owns schema reckon_lab and recreates it for every scenario.
DROP SCHEMA IF EXISTS reckon_lab CASCADE;
