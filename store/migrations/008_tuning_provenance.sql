-- What a preset written by `tune` was chosen on (study, golden set hash, split, held-out estimate
-- and interval, whether it was forced), and what a run's numbers depend on besides the golden set
-- (the corpus's content hash and document count, the effective configuration's hash), so `check`
-- can refuse a baseline run whose inputs changed. NULL for presets and runs stored before.
ALTER TABLE presets ADD COLUMN provenance JSON;
ALTER TABLE evaluation_runs ADD COLUMN inputs JSON;
