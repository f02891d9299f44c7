"""The bundled demo: a small corpus and golden set that make every page work on first start.

``demo/documents/`` holds a SciFact slice and four documents about RAG (Markdown, PDF, DOCX);
``demo/golden.jsonl`` judges queries against them (see ``demo/make_documents.py`` and
``demo/ATTRIBUTION.md``). Loading ingests the documents into the collection ``demo`` and
installs the golden set as ``<home>/golden_sets/demo.jsonl``. Loading again is cheap: unchanged
files are skipped before parsing and cached texts are not embedded again, so loading after an
interrupted load finishes it. ``demo_status`` says how far a load got ("demo: 12 of 44
documents"); the app keeps offering "Load the demo" until it is complete.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from workbench.config import WorkbenchConfig
from workbench.evaluation import golden as golden_sets
from workbench.ingestion.ingest import IngestReport, ProgressCallback, Source
from workbench.ingestion.parsers import SUPPORTED_TYPES
from workbench.service import Workbench

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"
DEMO_COLLECTION = "demo"
DEMO_GOLDEN = "demo"


class DemoMissingError(FileNotFoundError):
    """The demo folder is incomplete; the message says how to regenerate it."""


@dataclass(frozen=True)
class DemoLoad:
    collection: str
    report: IngestReport
    golden_path: Path
    golden_queries: int


def demo_documents(demo_dir: Path = DEMO_DIR) -> list[Path]:
    """The demo's document files, in name order."""
    folder = demo_dir / "documents"
    paths = (
        sorted(p for p in folder.glob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_TYPES)
        if folder.is_dir()
        else []
    )
    if not paths:
        raise DemoMissingError(f"no demo documents in {folder}; regenerate them with: python demo/make_documents.py")
    return paths


@dataclass(frozen=True)
class DemoStatus:
    """How much of the bundled demo this home holds."""

    total: int  # demo documents shipped (0: the demo folder is missing)
    loaded: int  # of them, ingested with the same content in the collection ``demo``
    collection_exists: bool
    golden_installed: bool

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.loaded == self.total and self.golden_installed

    @property
    def partial(self) -> bool:
        """Started but not finished: the collection exists and something is missing."""
        return self.collection_exists and not self.complete and self.total > 0

    def describe(self) -> str:
        return f"{DEMO_COLLECTION}: {self.loaded} of {self.total} documents"


def demo_status(bench: Workbench, demo_dir: Path = DEMO_DIR) -> DemoStatus:
    try:
        paths = demo_documents(demo_dir)
    except DemoMissingError:
        return DemoStatus(0, 0, False, False)
    golden_installed = (bench.home / "golden_sets" / f"{DEMO_GOLDEN}.jsonl").exists()
    if DEMO_COLLECTION not in bench.collection_names():
        return DemoStatus(len(paths), 0, False, golden_installed)
    stored = {doc.source: doc.sha256 for doc in bench.documents(DEMO_COLLECTION) if doc.status == "success"}
    loaded = sum(1 for path in paths if stored.get(path.name) == hashlib.sha256(path.read_bytes()).hexdigest())
    return DemoStatus(len(paths), loaded, True, golden_installed)


def is_empty_home(bench: Workbench) -> bool:
    return not bench.collection_names()


def load_demo(bench: Workbench, progress: ProgressCallback | None = None, demo_dir: Path = DEMO_DIR) -> DemoLoad:
    """Ingest the demo documents into ``demo`` and install the demo golden set in the home."""
    paths = demo_documents(demo_dir)
    golden_file = demo_dir / "golden.jsonl"
    if not golden_file.exists():
        raise DemoMissingError(f"{golden_file} is missing; regenerate it with: python demo/make_documents.py")
    # validate the golden set before spending time on ingestion
    golden = golden_sets.load(golden_file)
    # The demo's few dozen chunks embed in seconds on torch fp32; `auto` would first export and
    # calibrate every encoder runtime, minutes on a first run, for nothing a newcomer would notice.
    config = (
        None
        if DEMO_COLLECTION in bench.collection_names()
        else WorkbenchConfig().with_overrides(["embedding.runtime=torch", "embedding.precision=fp32"])
    )
    report = bench.ingest(DEMO_COLLECTION, [Source.from_path(path) for path in paths], config, progress=progress)
    installed = golden_sets.save(
        golden_sets.GoldenSet(DEMO_GOLDEN, golden.queries), bench.home / "golden_sets" / f"{DEMO_GOLDEN}.jsonl"
    )
    return DemoLoad(DEMO_COLLECTION, report, installed, len(golden))
