-- Collections, documents, chunks, the embedding cache, ingestion history and presets.
CREATE SEQUENCE collection_ids START 1;
CREATE TABLE collections (
    id BIGINT PRIMARY KEY DEFAULT nextval('collection_ids'),
    name VARCHAR NOT NULL UNIQUE,
    config JSON NOT NULL,
    default_preset VARCHAR NOT NULL DEFAULT 'default',
    generation BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE SEQUENCE document_ids START 1;
CREATE TABLE documents (
    id BIGINT PRIMARY KEY DEFAULT nextval('document_ids'),
    collection_id BIGINT NOT NULL,
    source VARCHAR NOT NULL,
    external_id VARCHAR,
    sha256 VARCHAR NOT NULL,
    size_bytes BIGINT NOT NULL,
    doc_type VARCHAR NOT NULL,
    title VARCHAR,
    markdown VARCHAR,
    page_starts INTEGER[],
    status VARCHAR NOT NULL,
    error VARCHAR,
    ingested_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE INDEX documents_by_collection ON documents (collection_id, source);

CREATE TABLE chunksets (
    collection_id BIGINT NOT NULL,
    key VARCHAR NOT NULL,
    config JSON NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (collection_id, key)
);

CREATE SEQUENCE chunk_ids START 1;
CREATE TABLE chunks (
    id BIGINT PRIMARY KEY DEFAULT nextval('chunk_ids'),
    collection_id BIGINT NOT NULL,
    chunkset VARCHAR NOT NULL,
    document_id BIGINT NOT NULL,
    ordinal INTEGER NOT NULL,
    text VARCHAR NOT NULL,
    indexed_text VARCHAR NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    heading_path VARCHAR[] NOT NULL,
    page INTEGER,
    content_hash VARCHAR NOT NULL,
    token_count INTEGER,
    over_max_length BOOLEAN NOT NULL DEFAULT false,
    metadata JSON
);
CREATE INDEX chunks_by_chunkset ON chunks (collection_id, chunkset);
CREATE INDEX chunks_by_document ON chunks (document_id);

CREATE TABLE embeddings (
    model VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    vector FLOAT[] NOT NULL,
    PRIMARY KEY (model, content_hash)
);

CREATE SEQUENCE ingestion_run_ids START 1;
CREATE TABLE ingestion_runs (
    id BIGINT PRIMARY KEY DEFAULT nextval('ingestion_run_ids'),
    collection_id BIGINT NOT NULL,
    started_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    finished_at TIMESTAMP,
    status VARCHAR NOT NULL,
    files_total INTEGER NOT NULL DEFAULT 0,
    parsed INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    chunks_embedded INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE ingestion_events (
    run_id BIGINT NOT NULL,
    source VARCHAR NOT NULL,
    sha256 VARCHAR,
    outcome VARCHAR NOT NULL,
    reason VARCHAR,
    happened_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE presets (
    name VARCHAR PRIMARY KEY,
    config JSON NOT NULL,
    description VARCHAR NOT NULL DEFAULT '',
    updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
