"""Document parsing: an uploaded file's bytes into one canonical Markdown string.

One module per format family, each with its extractors and the extensions it reads:

* ``text`` -- ``.md``/``.markdown``/``.txt`` as they are, ``.json`` pretty-printed in a fence,
  ``.csv`` as a table; and ``decode_text``, the one decoding policy for every text format;
* ``web`` -- ``.html``/``.htm``;
* ``pdf`` -- ``.pdf``, pages from pdfminer's form feeds, scanned pages OCR'd;
* ``office`` -- ``.docx``, ``.pptx`` (slides become pages), ``.xlsx`` (a section per sheet);
* ``images`` -- ``.png .jpg .jpeg .webp .gif .bmp .tiff``: OCR and/or a caption;
* ``code`` -- source files as one fenced block, Jupyter notebooks as Markdown and code cells.

Around them: ``document`` (what parsing returns), ``canonical`` (the canonical form and
titles), ``converter`` (the one markitdown instance, with only the converters routed to, none
of which reaches the network), ``containers`` (ZIP limits checked before anything inflates)
and ``registry`` (extension -> extractor, and ``parse_bytes``/``parse_file``).

Whatever the route, the text goes through :func:`canonicalize`, and every offset reported
(``page_starts``) refers to that canonical text.

Limits (``workbench.config.IngestConfig``): ZIP-based files are checked against
``ingest.max_unzipped_mb``, ``ingest.max_compression_ratio`` and ``ingest.max_zip_members``
before any parser opens them, images against ``ingest.max_image_megapixels``. The per-file time
and memory limits are enforced one level up, by the worker process a file is parsed in
(``workbench.ingestion.workers``).
"""

from workbench.ingestion.parsers.canonical import canonicalize, first_heading
from workbench.ingestion.parsers.document import ParsedDocument, ParseError
from workbench.ingestion.parsers.registry import SUPPORTED_TYPES, parse_bytes, parse_file
from workbench.ingestion.parsers.text import decode_text

__all__ = [
    "SUPPORTED_TYPES",
    "ParsedDocument",
    "ParseError",
    "canonicalize",
    "decode_text",
    "first_heading",
    "parse_bytes",
    "parse_file",
]
