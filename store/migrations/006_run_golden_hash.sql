-- The content hash of the golden set a run was scored on (its queries, judgements and answers),
-- so comparing two runs can say when the set changed between them. NULL for runs stored before.
ALTER TABLE evaluation_runs ADD COLUMN golden_hash VARCHAR;
