-- Appends the staged rows, recording the run's interval start in the
-- interval column.  $1 = interval start
WITH inserted AS (
	INSERT INTO :"target_table" (:columns, :"interval_column")
	SELECT :columns, $1::timestamptz FROM reckon_load_batch
	RETURNING 1
)
SELECT count(*) FROM inserted;
