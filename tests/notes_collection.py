"""A second collection beside the demo, with its own golden set: for the pickers that must offer the
selected collection's golden sets, not the demo's (the app tests and the browser tests share it)."""

from __future__ import annotations

from pathlib import Path

COLLECTION = "notes"
GOLDEN = "notes"
NOTES = {
    "tide-pools.md": (
        "# Tide pools\n\nSea anemones close their tentacles at low tide to keep water in, and open them again "
        "when the returning sea covers the rocks, so that the small fish and shrimps swept past can be caught.\n"
    ),
    "lighthouses.md": (
        "# Lighthouses\n\nA Fresnel lens bends the lamp's light into a beam seen 20 miles away, using rings of "
        "prisms that are far thinner and lighter than the single solid lens of the same focal length would be.\n"
    ),
}
QUERIES = {
    "n1": ("What do sea anemones do at low tide?", "tide-pools.md"),
    "n2": ("How far is a lighthouse beam seen?", "lighthouses.md"),
}


def add_notes_collection(home: Path) -> None:
    """Ingest ``notes`` into ``home`` (beside whatever it holds) and write its golden set."""
    import json

    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    report = Workbench(home).ingest(COLLECTION, [Source.from_markdown(name, text) for name, text in NOTES.items()])
    assert not report.failures, report.summary()
    lines = [
        json.dumps({"id": qid, "query": query, "relevant": [{"doc": doc}]}) for qid, (query, doc) in QUERIES.items()
    ]
    (home / "golden_sets" / f"{GOLDEN}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


GENERATED = "notes-synth"


def add_generated_set(home: Path) -> None:
    """A golden set as the LLM writes one from ``notes`` (``golden_sets/.synth``), not reviewed yet:
    its items wait in the review table with the decision "pending"."""
    import json

    items = []
    for number, (name, text) in enumerate(NOTES.items(), start=1):
        sentence = text.split("\n\n", 1)[1].strip()
        start = text.index(sentence)
        items.append(
            {
                "id": f"synth-{number}",
                # as long as the questions an LLM writes: the review table must still show the decision
                "query": f"According to the notes on {name.removesuffix('.md').replace('-', ' ')}, what happens, "
                "why does it happen that way, and what would a visitor see if they came back an hour later?",
                "relevant": [{"doc": name, "start": start, "end": start + len(sentence), "quote": sentence}],
                "meta": {"kind": "specific", "review": "pending", "overlap": 0.25},
            }
        )
    folder = home / "golden_sets"
    (folder / f"{GENERATED}.jsonl").write_text(
        "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8"
    )
    (folder / ".synth").mkdir(parents=True, exist_ok=True)
    summary = {"collection": COLLECTION, "set": GENERATED, "model": "written-by-hand", "seed": 1, "mean_overlap": 0.25}
    (folder / ".synth" / f"{GENERATED}.summary.json").write_text(json.dumps(summary), encoding="utf-8")
