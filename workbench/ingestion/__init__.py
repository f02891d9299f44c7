"""Files to the catalog: parsing to Markdown (``parsers``), ingest with its worker processes, index sync and BEIR
import."""
