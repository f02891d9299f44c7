-- What the parser could not read in a document, or read another way: the pictures whose text OCR
-- read and those it skipped, with why (JSON: {"images": [{"page", "share", "characters",
-- "skipped"}]}; see workbench.ingestion.parsers.image_notes). NULL when there is nothing to say,
-- and for documents stored before.
ALTER TABLE documents ADD COLUMN parse_report JSON;
