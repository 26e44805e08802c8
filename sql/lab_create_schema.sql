CREATE SCHEMA reckon_lab;
