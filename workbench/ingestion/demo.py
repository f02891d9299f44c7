"""The bundled demo: a small corpus and golden set that make every page work on first start.

``demo/documents/`` holds a SciFact slice and four documents about RAG (Markdown, PDF, DOCX);
``demo/golden.jsonl`` judges queries against them (see ``demo/make_documents.py`` and
``demo/ATTRIBUTION.md``). Loading ingests the documents into the collection ``demo`` and
installs the golden set as ``<home>/golden_sets/demo.jsonl``. Loading again is cheap: unchanged
files are skipped before parsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.evaluation import golden as golden_sets
from workbench.ingestion.ingest import IngestReport, ProgressCallback, Source
from workbench.ingestion.parsing import SUPPORTED_TYPES
from workbench.service import Workbench

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
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
    paths = sorted(p for p in folder.glob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_TYPES) \
        if folder.is_dir() else []
    if not paths:
        raise DemoMissingError(
            f"no demo documents in {folder}; regenerate them with: python demo/make_documents.py"
        )
    return paths


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
    report = bench.ingest(DEMO_COLLECTION, [Source.from_path(path) for path in paths], progress=progress)
    installed = golden_sets.save(golden_sets.GoldenSet(DEMO_GOLDEN, golden.queries),
                                 bench.home / "golden_sets" / f"{DEMO_GOLDEN}.jsonl")
    return DemoLoad(DEMO_COLLECTION, report, installed, len(golden))
