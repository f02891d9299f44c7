-- The confidence verdict of each evaluated query, and a run's abstention counts (golden sets
-- with no-answer queries: an empty relevant list). Both stay NULL for runs stored before.
ALTER TABLE evaluation_runs ADD COLUMN abstention JSON;
ALTER TABLE evaluation_query_results ADD COLUMN verdict VARCHAR;
