-- The version of the parser that wrote a document's Markdown (per document type; see
-- workbench.ingestion.parsers.registry.parser_version). NULL for documents stored before: they
-- were written by version 1 of their type's parser. A document whose parser has a newer version
-- is parsed again by `sync` (from its kept original) or by ingesting the same file again.
ALTER TABLE documents ADD COLUMN parser_version INTEGER;
