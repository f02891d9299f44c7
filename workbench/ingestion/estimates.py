"""Estimates of what an ingest will cost: chunks from characters, time from the throughput this home
measured (or a stated first guess)."""

from __future__ import annotations

import html
import io
import json
import logging
import math
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from workbench.config import ChunkingConfig

log = logging.getLogger(__name__)

RATES_FILE = "ingest_rates.json"


def chunk_rate(home: Path, model: str) -> float | None:
    """Chunk texts per second this home measured for ``model`` (an embedder key) in its last real
    embedding run, else for the same model on another runtime (``measured_rate``)."""
    found = measured_rate(home, model)
    return found[0] if found else None


def measured_rate(home: Path, key: str) -> tuple[float, str] | None:
    """(chunk texts per second, the embedder key they were measured with): ``key``'s own rate, else
    the same model's on another runtime (``model@runtime-precision``; the demo measures torch fp32,
    and a collection made with auto may run another). None before this home's first real ingest."""
    try:
        rates = json.loads((home / RATES_FILE).read_text(encoding="utf-8"))
        measured = {name: float(value) for name, value in rates.items() if name not in (LOAD_KEY, PARSE_KEY)}
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    model = key.split("@", 1)[0]
    candidates = [key] + sorted(name for name in measured if name != key and name.split("@", 1)[0] == model)
    for name in candidates:
        if measured.get(name, 0) > 0:
            return measured[name], name
    return None


def remember_rate(home: Path, model: str, texts: int, seconds: float) -> None:
    if texts < 64 or seconds <= 0:  # too few texts to say anything about throughput
        return
    path = home / RATES_FILE
    try:
        rates = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        rates[model] = round(texts / seconds, 2)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(rates, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)
    except (OSError, ValueError):
        log.debug("could not record the embedding rate in %s", path)


#: seconds assumed to load an embedding model before this home has timed one
FALLBACK_LOAD_S = 10.0
LOAD_KEY = "load_s"


def load_seconds(home: Path, model: str) -> float | None:
    """Seconds this home measured to load ``model`` (read the weights, build the network)."""
    try:
        rates = json.loads((home / RATES_FILE).read_text(encoding="utf-8"))
        seconds = float((rates.get(LOAD_KEY) or {}).get(model, 0))
    except (OSError, ValueError, AttributeError):
        return None
    return seconds if seconds > 0 else None


def remember_load(home: Path, model: str, seconds: float) -> None:
    if seconds <= 0:
        return
    path = home / RATES_FILE
    try:
        rates = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        rates.setdefault(LOAD_KEY, {})[model] = round(seconds, 2)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(rates, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)
    except (OSError, ValueError, AttributeError):
        log.debug("could not record the model load time in %s", path)


def pending_load_s(home: Path, embedder) -> float | None:
    """Seconds still to spend loading ``embedder`` before it embeds anything (None once it is loaded)."""
    if getattr(embedder, "loaded", True):
        return None
    return load_seconds(home, embedder.name) or FALLBACK_LOAD_S


def estimated_text_characters(name: str, size_bytes: int) -> int:
    """About how much text a file of this type and size holds, from its size alone (for estimates
    of files not read yet: a limit's cost, a file over the size limit)."""
    suffix = PurePath(name).suffix.lower()
    if suffix in (".pdf",):
        return size_bytes // 8
    if suffix in (".docx", ".pptx", ".xlsx"):
        return size_bytes // 3
    if suffix in IMAGE_SUFFIXES:
        return IMAGE_CHARACTERS
    if suffix in (".html", ".htm"):
        return size_bytes // 2
    return size_bytes


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tiff", ".tif")
#: text assumed in a picture (its caption and what OCR reads): nothing cheaper than OCR can tell
IMAGE_CHARACTERS = 600
#: files up to this size are read for the estimate (their text, not their size, says how much text
#: they hold: a PDF's embedded fonts and pictures, a deck's images weigh a lot and hold none)
PEEK_MAX_BYTES = 64 * 2**20
#: a PDF's text layer is read from this many pages, spread over the document, and scaled up
PEEK_PDF_PAGES = 24
#: an Office file's XML read for the estimate, in bytes of uncompressed XML
PEEK_XML_BYTES = 32 * 2**20
_OFFICE_TEXT = {
    ".docx": (("word/document.xml", "word/footnotes.xml"), re.compile(rb"<w:t(?:\s[^>]*)?>([^<]*)</w:t>")),
    ".pptx": (("ppt/slides/slide", "ppt/notesSlides/"), re.compile(rb"<a:t>([^<]*)</a:t>")),
    ".xlsx": (("xl/sharedStrings.xml", "xl/worksheets/sheet"), re.compile(rb"<(?:t|v)(?:\s[^>]*)?>([^<]*)</(?:t|v)>")),
}
_TAGS = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class TextSize:
    """How much text a file holds, as far as a cheap look tells: characters, and about how many
    tokens a BERT-style WordPiece tokenizer makes of them (a CJK character is one; an English
    word about 1.3; punctuation one each), which says how many window-sized pieces it makes."""

    characters: int
    tokens: float | None = None  # None: not read, only guessed from the size
    #: read from the file (True) or guessed from its size and type
    read: bool = False
    #: the text read (None: not read), for the window rule's language check; used for the estimate only
    text: str | None = field(default=None, repr=False, compare=False)


def text_size(name: str, data: bytes | None, size_bytes: int) -> TextSize:
    """The text ``name`` holds: read from ``data`` where that is cheap (plain text, Office XML, a
    PDF's text layer), else ``estimated_text_characters``."""
    suffix = PurePath(name).suffix.lower()
    text: str | None = None
    if data is not None and size_bytes <= PEEK_MAX_BYTES and suffix not in IMAGE_SUFFIXES:
        try:
            text = _peek(suffix, data)
        except Exception:  # a file the parser will refuse, with its own reason: estimate by size
            log.debug("could not read %s for the estimate", name, exc_info=True)
            text = None
    if text is None:
        return TextSize(estimated_text_characters(name, size_bytes))
    return markdown_size(text)


def markdown_size(text: str) -> TextSize:
    tokens = len(_CJK.findall(text)) + TOKENS_PER_WORD * len(_WORD.findall(text)) + len(_PUNCTUATION.findall(text))
    return TextSize(len(text), tokens, read=True, text=text)


def _peek(suffix: str, data: bytes) -> str | None:
    if suffix in _OFFICE_TEXT:
        parts, pattern = _OFFICE_TEXT[suffix]
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            texts, budget = [], PEEK_XML_BYTES
            for info in archive.infolist():
                if not info.filename.startswith(parts) or info.file_size > budget:
                    continue
                budget -= info.file_size
                texts += [html.unescape(m.decode("utf-8", "replace")) for m in pattern.findall(archive.read(info))]
            return "\n".join(texts)
    if suffix == ".pdf":
        return _pdf_text(data)
    if suffix in (".html", ".htm", ".xml"):
        return html.unescape(_TAGS.sub(" ", data.decode("utf-8", "replace")))
    if suffix in (".doc", ".ppt", ".xls", ".epub", ".zip", ".msg", ".eml"):
        return None
    return data.decode("utf-8", "replace")  # text, Markdown, CSV, JSON, code, notebooks


def _pdf_text(data: bytes) -> str | None:
    """The text layer of up to ``PEEK_PDF_PAGES`` pages, repeated to the page count (None: no text
    layer, a scan, which OCR reads at parse time)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        pages = len(document)
        if pages == 0:
            return ""
        step = max(1, pages / PEEK_PDF_PAGES)
        read = sorted({int(i * step) for i in range(min(pages, PEEK_PDF_PAGES))})
        texts = []
        for number in read:
            page = document[number]
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
    finally:
        document.close()
    text = "\n".join(texts)
    if not text.strip():
        return None
    return text * round(pages / len(read)) if len(read) < pages else text


#: CJK ideographs, kana and compatibility ideographs: one token each to a WordPiece tokenizer
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+")
_PUNCTUATION = re.compile(r"[^\w\s]")
#: WordPiece tokens per Latin-script word (long and rare words split into pieces)
TOKENS_PER_WORD = 1.3


def model_window(key: str) -> int | None:
    """The window in tokens of the embedder ``key`` (``model@runtime-precision``) as the catalogue
    states it (no model is loaded for an estimate); None for a model it does not know."""
    from workbench.models.catalogue import EMBEDDING, entry

    card = entry(key.split("@", 1)[0], EMBEDDING)
    return card.max_seq_length if card is not None else None


#: characters per token assumed for text not read (English, in a BERT-style WordPiece tokenizer)
LATIN_CHARS_PER_TOKEN = 4.0
#: tokens of a chunk's window taken by the heading path and the model's special tokens
WINDOW_MARGIN_TOKENS = 24
#: how full a piece cut to fit the window is on average (cuts fall at sentence ends, before it):
#: fitted on bench/mixed_folder.py's files (bench/bench_new_collection.py) and checked on texts it
#: was not fitted on (Chinese design documents, CMRC and SciFact paragraphs: within 0.75-1.2x)
WINDOW_FILL = 0.8


def estimate_chunks(
    characters: int, chunking: ChunkingConfig, tokens: float | None = None, window: int | None = None
) -> int:
    """About how many chunks one document of ``characters`` characters (``tokens`` tokens, when
    known; else four characters a token) makes.

    ``window``: the embedding model's window in tokens, when chunks longer than it are cut to fit
    (``chunking.fit_window``): a chunk of Chinese text holds about one token per character, so a
    1,000-character chunk becomes five for a 256-token window.
    """
    if tokens is None:
        tokens = characters / LATIN_CHARS_PER_TOKEN
    tokens_per_char = tokens / characters if characters and tokens else 1 / LATIN_CHARS_PER_TOKEN
    if chunking.unit == "tokens":  # sizes count tokens: as characters, through the text's own ratio
        size = chunking.size / tokens_per_char
        overlap = chunking.overlap / tokens_per_char
    else:
        size, overlap = float(chunking.size), float(chunking.overlap)
    step = max(size - overlap, size / 2, 1.0)
    if chunking.strategy == "sentence_window":  # one chunk per sentence
        step = 120 if tokens_per_char < 0.5 else 40
    chunks = max(1, math.ceil(max(characters - overlap, 1) / step))
    if window and chunking.fit_window:  # each chunk over the window is cut into as many as it needs
        chunk_tokens = (characters / chunks + overlap) * tokens_per_char
        room = max((window - WINDOW_MARGIN_TOKENS) * WINDOW_FILL, 16)
        return max(chunks, math.ceil(chunks * chunk_tokens / room))
    return chunks


#: seconds assumed to parse one file of each kind (a picture: OCR; a PDF: layout analysis), for
#: the split of the progress bar and the time estimate, before this home has timed its own parses
PARSE_S = {".pdf": 1.5, ".docx": 0.5, ".pptx": 0.5, ".xlsx": 0.5, ".html": 0.2, ".htm": 0.2}
IMAGE_PARSE_S = 4.0
TEXT_PARSE_S = 0.05
#: the key in ``RATES_FILE`` under which parse times are kept: per file type, the worker seconds and
#: the characters of text they produced, summed over this home's recent ingests
PARSE_KEY = "parse"
#: a file type's parse time is trusted once this many characters were timed (a few pages)
PARSE_MIN_CHARACTERS = 5_000
#: how far one ingest's parses move a type's remembered totals: old totals are scaled so they weigh
#: as at most this many characters (a new machine, a new parser version is learned within a run)
PARSE_MEMORY_CHARACTERS = 2_000_000


def parse_seconds(name: str, characters: int | None = None, home: Path | None = None) -> float:
    """Worker seconds to parse ``name``: from the rate this home measured for its type when there
    is one and the text's size is known (parse time follows the text a file holds: pages, cells,
    slides), else the stated guess per file."""
    suffix = PurePath(name).suffix.lower()
    if characters is not None and home is not None:
        rate = parse_rate(home, suffix)
        if rate is not None:
            return characters / rate
    return IMAGE_PARSE_S if suffix in IMAGE_SUFFIXES else PARSE_S.get(suffix, TEXT_PARSE_S)


def parse_rate(home: Path, suffix: str) -> float | None:
    """Characters of text one parse worker produced per second for ``suffix`` files in this home."""
    try:
        rates = json.loads((home / RATES_FILE).read_text(encoding="utf-8"))
        seconds, characters = (rates.get(PARSE_KEY) or {}).get(suffix, (0.0, 0))
        seconds, characters = float(seconds), int(characters)
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    if characters < PARSE_MIN_CHARACTERS or seconds <= 0:
        return None
    return characters / seconds


def remember_parses(home: Path, timed: dict[str, tuple[float, int]]) -> None:
    """Add one ingest's parses (suffix -> (worker seconds, characters)) to the home's totals."""
    timed = {suffix: value for suffix, value in timed.items() if value[0] > 0 and value[1] > 0}
    if not timed:
        return
    path = home / RATES_FILE
    try:
        rates = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        kept = rates.setdefault(PARSE_KEY, {})
        for suffix, (seconds, characters) in timed.items():
            old_seconds, old_characters = kept.get(suffix, (0.0, 0))
            scale = min(1.0, PARSE_MEMORY_CHARACTERS / old_characters) if old_characters else 1.0
            kept[suffix] = [round(old_seconds * scale + seconds, 3), int(old_characters * scale) + characters]
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(rates, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)
    except (OSError, ValueError, AttributeError, TypeError):
        log.debug("could not record the parse times in %s", path)


@dataclass(frozen=True)
class IngestEstimate:
    """What an ingest is expected to do: the numbers behind its line, and the weights the progress
    bar gives reading the files and embedding their chunks (proportional to the seconds each takes)."""

    files: int
    chunks: int
    parse_s: float  # all files, one worker's time (the workers share it)
    embed_s: float
    load_s: float = 0.0
    workers: int = 1
    #: parse workers read files while this process embeds: the two stages run at once. The rates
    #: are measured in such runs (the encoder slowed by the parses beside it, and the other way
    #: round), so the slower stage is the run's length
    overlapped: bool = True

    @property
    def reading_s(self) -> float:
        return self.parse_s / max(self.workers, 1)

    @property
    def seconds(self) -> float:
        """Reading, and loading then embedding: the slower of the two when they overlap (the workers
        read while the model loads), else their sum."""
        if self.overlapped:
            return max(self.reading_s, self.load_s + self.embed_s)
        return self.load_s + self.reading_s + self.embed_s


def describe_duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


#: chunks per second assumed for estimates before a home has measured its own
FALLBACK_CHUNK_RATE = 25.0


def describe_estimate(
    chunks: int, chunk_rate: float | None, load_s: float | None = None, measured_for: str | None = None
) -> str:
    """'about 51,000 chunks, roughly 40 min here' (with a stated guess when nothing was measured);
    ``load_s``: the embedding model is not loaded yet, and loading it comes first; ``measured_for``:
    the embedder the rate was measured with, named in the line."""
    loading = f", after about {describe_duration(load_s)} to load the embedding model" if load_s else ""
    if chunk_rate and measured_for:
        return (
            f"about {chunks:,} chunks, roughly {describe_duration(chunks / chunk_rate)} to embed at the "
            f"{chunk_rate:.1f} chunks/s this home measured for {measured_for}{loading}"
        )
    if chunk_rate:
        return f"about {chunks:,} chunks, roughly {describe_duration(chunks / chunk_rate)} to embed here{loading}"
    return (
        f"about {chunks:,} chunks, roughly {describe_duration(chunks / FALLBACK_CHUNK_RATE)} to embed at a "
        f"first guess of {FALLBACK_CHUNK_RATE:g} chunks/s (measured after this home's first real ingest)"
        f"{loading}"
    )
