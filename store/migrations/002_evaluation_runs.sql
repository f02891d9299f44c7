-- Evaluation runs (config, averaged and per-stage metrics, per-query results) and sweeps.
-- Runs name their collection and golden set rather than pointing at ids: a run must stay
-- readable after the collection it measured is rebuilt or deleted.
CREATE SEQUENCE evaluation_sweep_ids START 1;
CREATE TABLE evaluation_sweeps (
    id BIGINT PRIMARY KEY DEFAULT nextval('evaluation_sweep_ids'),
    collection VARCHAR NOT NULL,
    golden VARCHAR NOT NULL,
    level VARCHAR NOT NULL,
    base_config JSON NOT NULL,
    grid JSON NOT NULL,
    metrics JSON NOT NULL,
    status VARCHAR NOT NULL DEFAULT 'running',
    summary JSON,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    finished_at TIMESTAMP
);

CREATE SEQUENCE evaluation_run_ids START 1;
CREATE TABLE evaluation_runs (
    id BIGINT PRIMARY KEY DEFAULT nextval('evaluation_run_ids'),
    collection VARCHAR NOT NULL,
    golden VARCHAR NOT NULL,
    level VARCHAR NOT NULL,
    label VARCHAR NOT NULL DEFAULT '',
    config JSON NOT NULL,
    overrides JSON NOT NULL,
    metrics JSON NOT NULL,
    stage_metrics JSON NOT NULL,
    evaluated_top_k INTEGER NOT NULL,
    queries INTEGER NOT NULL,
    skipped JSON NOT NULL,
    notes JSON NOT NULL,
    elapsed_s DOUBLE NOT NULL,
    sweep_id BIGINT,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE INDEX evaluation_runs_by_sweep ON evaluation_runs (sweep_id);

CREATE TABLE evaluation_query_results (
    run_id BIGINT NOT NULL,
    position INTEGER NOT NULL,
    query_id VARCHAR NOT NULL,
    query VARCHAR NOT NULL,
    metrics JSON NOT NULL,
    ranked_doc_ids JSON NOT NULL,
    ranked_chunk_ids JSON NOT NULL,
    relevant INTEGER NOT NULL,
    stage_metrics JSON NOT NULL,
    PRIMARY KEY (run_id, query_id)
);
