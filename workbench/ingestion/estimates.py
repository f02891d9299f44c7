"""Estimates of what an ingest will cost: chunks from characters, time from the throughput this home
measured (or a stated first guess)."""

from __future__ import annotations

import json
import logging
import os
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
        measured = {name: float(value) for name, value in rates.items() if name != LOAD_KEY}
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
    """About how much text a file of this type and size holds (for estimates only)."""
    suffix = PurePath(name).suffix.lower()
    if suffix in (".pdf",):
        return size_bytes // 8
    if suffix in (".docx", ".pptx", ".xlsx"):
        return size_bytes // 3
    if suffix in (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tiff", ".tif"):
        return 1500
    if suffix in (".html", ".htm"):
        return size_bytes // 2
    return size_bytes


def estimate_chunks(characters: int, chunking: ChunkingConfig) -> int:
    """About how many chunks ``characters`` of text make (tokens counted as ~4 characters)."""
    size = chunking.size * (4 if chunking.unit == "tokens" else 1)
    step = max(size - chunking.overlap * (4 if chunking.unit == "tokens" else 1), max(size // 2, 1))
    if chunking.strategy == "sentence_window":
        step = 120  # one chunk per sentence
    return max(1, -(-characters // step))


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
