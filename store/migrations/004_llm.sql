-- Replies of an LLM endpoint, keyed by (model, prompt version, inputs hash), so sweeps and
-- re-runs never pay for the same call twice. Only replies a stage could use are stored.
CREATE TABLE llm_cache (
    model VARCHAR NOT NULL,
    prompt_version VARCHAR NOT NULL,
    inputs_hash VARCHAR NOT NULL,
    reply VARCHAR NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    elapsed_ms DOUBLE NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (model, prompt_version, inputs_hash)
);

-- Answer evaluation (eval --answers): each query's generated answer, the judges' verdicts and
-- what the calls cost, stored beside its ranking metrics.
ALTER TABLE evaluation_query_results ADD COLUMN answer JSON;
