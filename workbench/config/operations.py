"""The sections of how the workbench operates, which never change what a query returns: the limits
every file is held to while it is read, how golden sets are written with the LLM endpoint, and
what the workbench records about its own use, and how experiments are planned."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workbench.config.fields import Lifetime, setting


@dataclass(frozen=True)
class IngestConfig:
    """Limits every file is held to while it is read; each violation fails that file alone."""

    LIFETIME: ClassVar[Lifetime] = Lifetime.INGEST

    max_file_mb: float = setting(
        20.0, "files larger than this many MB are refused before they are read", minimum=0.001, maximum=100_000.0
    )
    max_chunks: int = setting(
        3000,
        "a document estimated to make more chunks than this is refused, with the time it would take",
        minimum=1,
        maximum=100_000_000,
    )
    parse_timeout_s: float = setting(
        60.0, "seconds a parse worker may spend on one file before it is stopped", minimum=0.1, maximum=86_400.0
    )
    parse_memory_mb: int = setting(
        1536, "resident memory (MB) a parse worker may reach before it is stopped", minimum=128, maximum=1_000_000
    )
    workers: int = setting(
        0, "parse worker processes; 0 = one per available CPU core (at most 4)", minimum=0, maximum=64
    )
    max_unzipped_mb: float = setting(
        200.0,
        "ZIP-based files (docx, pptx, xlsx): largest total uncompressed size in MB",
        minimum=0.001,
        maximum=1_000_000.0,
    )
    max_compression_ratio: float = setting(
        100.0, "ZIP-based files: largest uncompressed-to-compressed size ratio", minimum=1.0, maximum=1_000_000.0
    )
    max_zip_members: int = setting(
        10_000, "ZIP-based files: most members (parts) in the archive", minimum=1, maximum=10_000_000
    )
    max_image_megapixels: float = setting(
        60.0,
        "images and scanned PDF pages larger than this many megapixels are refused",
        minimum=0.01,
        maximum=100_000.0,
    )
    ocr_languages: str = setting(
        "eng+chi_sim", "tesseract language packs for images and scanned PDF pages (installed ones are used)"
    )
    captions: bool = setting(
        True, "caption images with the configured OpenAI-compatible vision endpoint (WORKBENCH_LLM_*)"
    )
    ocr_image_share: float = setting(
        0.0,
        "pictures on a PDF page that also has text, smaller than this share of the page, are not looked at "
        "(0: any size; the text check decides)",
        minimum=0.0,
        maximum=1.0,
    )
    ocr_text_check: bool = setting(
        True,
        "check every picture in a document (PDF, DOCX, PPTX) for lines of text before OCR, in milliseconds; "
        "off OCRs every picture",
    )
    max_ocr_images: int = setting(
        20,
        "most pictures OCR'd in one document (PDF pages that have text, DOCX, PPTX); 0 reads none; "
        "the rest are listed as skipped",
        minimum=0,
        maximum=100_000,
    )
    ocr_budget_s: float = setting(
        30.0,
        "seconds OCR may take on one picture in a document; a picture past it is listed as skipped "
        "(sync --ocr reads it later); a document's pictures take at most half of ingest.parse_timeout_s",
        minimum=0.1,
        maximum=86_400.0,
    )


@dataclass(frozen=True)
class SynthConfig:
    """Writing golden questions with the LLM endpoint (``golden synth``) and grading pools with it."""

    LIFETIME: ClassVar[Lifetime] = Lifetime.USAGE

    max_overlap: float = setting(
        0.75,
        "golden synth: a question sharing more than this share of its BM25 tokens "
        "with its quote copies it and is rejected",
        minimum=0.0,
        maximum=1.0,
    )
    max_similarity: float = setting(
        0.95,
        "golden synth: a question whose embedding cosine with a kept one is above "
        "this is a near-duplicate and is rejected",
        minimum=0.0,
        maximum=1.0,
    )
    min_chunk_chars: int = setting(
        80, "golden synth: chunks shorter than this are not sampled", minimum=1, maximum=100_000
    )
    min_per_document: int = setting(
        3,
        "golden synth: questions every document gets before the rest are shared by each one's text",
        minimum=0,
        maximum=1000,
    )
    max_quote_places: int = setting(
        20,
        "golden synth: a quote found in more places than this (boilerplate) drops its question; "
        "up to it, every place is judged relevant",
        minimum=1,
        maximum=10_000,
    )
    max_chunk_chars: int = setting(
        3000, "golden synth and judge: characters of a chunk put into a prompt", minimum=100, maximum=100_000
    )
    max_items: int = setting(
        2000, "golden synth: most questions one run may ask for (--n)", minimum=1, maximum=1_000_000
    )
    max_tokens: int = setting(400, "golden synth and judge: most tokens a reply may have", minimum=16, maximum=32_000)
    timeout_s: float = setting(
        120.0, "golden synth and judge: seconds one request may take", minimum=0.1, maximum=3600.0
    )


@dataclass(frozen=True)
class TuningConfig:
    """How ``tune`` plans an experiment when it is not told (``workbench.tuning.plan``)."""

    LIFETIME: ClassVar[Lifetime] = Lifetime.USAGE

    folds_below: int = setting(
        300,
        "tune: with fewer scorable queries than this, nested cross-validation (every query held out "
        "once) instead of one holdout, whose verdict hangs on its seed",
        minimum=0,
        maximum=1_000_000,
    )
    folds: int = setting(5, "tune: folds of the nested cross-validation it chooses by itself", minimum=2, maximum=20)
    trials: int = setting(
        50,
        "tune and the app's Tune this collection: completed trials per study when neither --trials nor "
        "--minutes is given",
        minimum=1,
        maximum=100_000,
    )
    first_questions: int = setting(
        60,
        "the app's Tune this collection: questions the LLM endpoint writes for a collection no golden set judges",
        minimum=1,
        maximum=100_000,
    )
    saturated_share: float = setting(
        0.9,
        "tune and eval: a golden set is saturated at a level when the starting configuration ranks every "
        "relevant item in the top 10 for at least this share of its queries (no configuration can show a gain)",
        minimum=0.0,
        maximum=1.0,
    )


@dataclass(frozen=True)
class LogConfig:
    """What the workbench records about its own use (kept in the home, never sent anywhere)."""

    LIFETIME: ClassVar[Lifetime] = Lifetime.USAGE

    queries: bool = setting(
        True,
        "record each query of the Retrieval lab, the CLI and the MCP server in the query "
        "log (log list, golden from-log); off records nothing",
    )
