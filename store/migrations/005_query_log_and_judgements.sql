-- The query log, judging pools and judgements (golden sets built from the user's own documents).

-- Each query the Retrieval lab, the CLI or the MCP server ran. Processes append to their own
-- JSONL file under the home (never the catalog: a query must not wait for another process's
-- ingest) and those files are folded in here later; (log_file, line_offset) makes folding a
-- line twice harmless.
CREATE TABLE query_log (
    log_file VARCHAR NOT NULL,
    line_offset BIGINT NOT NULL,
    logged_at TIMESTAMP NOT NULL,
    source VARCHAR NOT NULL,
    collection VARCHAR NOT NULL,
    query VARCHAR NOT NULL,
    config_hash VARCHAR NOT NULL,
    chunk_ids BIGINT[] NOT NULL,
    PRIMARY KEY (log_file, line_offset)
);
CREATE INDEX query_log_by_time ON query_log (logged_at);

-- How far each process's log file has been folded in (bytes).
CREATE TABLE query_log_files (
    log_file VARCHAR PRIMARY KEY,
    folded_bytes BIGINT NOT NULL
);

-- A pool: per query, the union of several configurations' top k, shuffled, blind to who found what.
CREATE TABLE pools (
    name VARCHAR PRIMARY KEY,
    collection VARCHAR NOT NULL,
    query_set VARCHAR NOT NULL,
    configs JSON NOT NULL,
    depth INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- One pooled chunk of one query. Judgements name the document and the span, not only the chunk
-- id, so they survive re-chunking (the chunk id is kept to show the text being judged).
CREATE TABLE pool_items (
    pool VARCHAR NOT NULL,
    query_position INTEGER NOT NULL,
    query_id VARCHAR NOT NULL,
    query VARCHAR NOT NULL,
    position INTEGER NOT NULL,
    chunk_id BIGINT NOT NULL,
    document VARCHAR NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    PRIMARY KEY (pool, query_id, position)
);

-- A grade 0-3 given by a judge (a person's name, or "model@prompt-hash") to one pooled chunk.
-- Judging the same chunk again replaces the judge's earlier grade.
CREATE TABLE judgements (
    pool VARCHAR NOT NULL,
    query_id VARCHAR NOT NULL,
    query VARCHAR NOT NULL,
    chunk_id BIGINT NOT NULL,
    document VARCHAR NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 3),
    judge VARCHAR NOT NULL,
    reason VARCHAR,
    judged_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (pool, query_id, chunk_id, judge)
);
