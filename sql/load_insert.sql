-- Appends the staged rows to the target.
WITH inserted AS (
	INSERT INTO :"target_table" (:columns)
	SELECT :columns FROM reckon_load_batch
	RETURNING 1
)
SELECT count(*) FROM inserted;
