"""The texts the benches read: SciFact when the shared datasets are beside the checkout, else (and
always in a smoke run) the demo's 40 SciFact abstracts and its golden set's SciFact claims, which
every checkout has."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.ingestion.sources import Source

REPO = Path(__file__).resolve().parents[1]
#: where the project keeps SciFact: ``shared/datasets`` beside the checkout; ``$WORKBENCH_SCIFACT`` moves it
SCIFACT = Path(os.environ.get("WORKBENCH_SCIFACT") or REPO.parent / "shared" / "datasets" / "scifact")
DEMO_DOCUMENTS = REPO / "demo" / "documents"
DEMO_GOLDEN = REPO / "demo" / "golden.jsonl"


@dataclass(frozen=True)
class Abstract:
    """One SciFact abstract: its corpus id, title and text."""

    doc_id: str
    title: str
    text: str

    def joined(self, max_chars: int | None = None) -> str:
        """Title, a blank line and the text (cut to ``max_chars``): what a chunk of it holds."""
        return f"{self.title}\n\n{self.text}"[:max_chars]

    def source(self) -> Source:
        """The abstract as ``import-beir`` reads it: ``ID.md``, its title a heading."""
        from workbench.ingestion.beir import document_markdown
        from workbench.ingestion.sources import Source

        return Source.from_markdown(f"{self.doc_id}.md", document_markdown(self.title, self.text)[0], self.doc_id)


def scifact_here(demo: bool = False) -> bool:
    """True when the benches read SciFact itself (not asked for the demo, and SciFact is there)."""
    return not demo and (SCIFACT / "corpus.jsonl").exists()


def described(demo: bool = False) -> str:
    """What the texts are, for a table's title."""
    return "SciFact" if scifact_here(demo) else "the demo's SciFact abstracts"


def abstracts(count: int, demo: bool = False) -> list[Abstract]:
    """The first ``count`` abstracts (fewer when the demo holds fewer)."""
    found: list[Abstract] = []
    if scifact_here(demo):
        with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                if len(found) == count:
                    break
                row = json.loads(line)
                found.append(Abstract(str(row["_id"]), row["title"], row["text"]))
        return found
    for path in sorted(DEMO_DOCUMENTS.glob("scifact-*.md"))[:count]:
        heading, _, text = path.read_text(encoding="utf-8").partition("\n\n")
        found.append(Abstract(path.stem.removeprefix("scifact-"), heading.removeprefix("# ").strip(), text.strip()))
    return found


def claims(count: int, demo: bool = False) -> list[str]:
    """The first ``count`` SciFact claims (queries)."""
    if scifact_here(demo):
        with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as lines:
            return [json.loads(line)["text"] for _, line in zip(range(count), lines, strict=False)]
    rows = [json.loads(line) for line in DEMO_GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(row["query"]) for row in rows if str(row["id"]).startswith("scifact-")][:count]
