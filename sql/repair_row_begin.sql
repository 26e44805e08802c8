-- Opens the transaction that repairs one interval row by row: the staging,
-- the writes and the check that every written row belongs to the pair
-- commit together or not at all.  Nothing outlives it (every table it
-- creates is dropped at its end), so it works through a transaction pooler.
BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE;
