"""``golden synth`` on a collection: sample its chunks, ask, verify, write the set.

The set goes to the home's ``golden_sets/NAME.jsonl`` (kept items, span-level, with provenance
under ``meta``); beside it ``golden_sets/.synth/NAME.summary.json`` keeps the run's counts,
rejects by reason and mean question/quote overlap, and ``NAME.<hash>.journal.jsonl`` every
finished task, so a stopped run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from store.atomic import atomic_write_text
from store.text_tokenizer import Bm25Tokenizer
from workbench.config import ConfigError, WorkbenchConfig
from workbench.evaluation import golden as golden_sets
from workbench.facade import WorkbenchFacade
from workbench.golden.prompts import KINDS, PROMPT_VERSION
from workbench.golden.sampling import SourceChunk, SynthTask, plan_counts, plan_tasks
from workbench.golden.synth import (
    Estimate,
    SynthLimits,
    SynthReport,
    Verifier,
    estimate,
    read_journal,
    run_tasks,
)
from workbench.language.scripts import text_language
from workbench.llm.client import LlmUnavailable

SYNTH_FOLDER = ".synth"


def parse_kinds(text: str | Sequence[str] | None) -> tuple[str, ...]:
    raw = text.split(",") if isinstance(text, str) else list(text or ())
    kinds = tuple(dict.fromkeys(k.strip() for k in raw if k.strip())) or KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(
            f"unknown question kind {unknown[0]!r}; --kinds takes a comma-separated list of {', '.join(KINDS)}"
        )
    return kinds


@dataclass
class SynthPlan:
    collection: str
    out: str
    tasks: list[SynthTask]
    limits: SynthLimits
    model: str
    out_path: Path
    journal: Path
    summary_path: Path
    config: WorkbenchConfig
    seed: int
    kinds: tuple[str, ...]
    documents: tuple[tuple[int, str], ...] = ()  # every document of the collection: quotes are looked up in all

    def estimate(self) -> Estimate:
        return estimate(self.tasks, self.limits, set(read_journal(self.journal)))

    def spread(self) -> list[str]:
        """The plan per language and per document, as printed before anything is asked."""
        documents, languages = plan_counts(self.tasks)
        lines = ["per language: " + ", ".join(f"{lang} {n}" for lang, n in languages.items())]
        lines.append(
            f"per document ({len(documents)} of {len(self.documents)} documents; at least "
            f"synth.min_per_document {self.config.synth.min_per_document} each, the rest by their text): "
            + ", ".join(f"{doc} {n}" for doc, n in documents.items())
        )
        return lines


def collection_documents(
    bench: WorkbenchFacade, collection: str, config: WorkbenchConfig
) -> tuple[tuple[int, str], ...]:
    """Every document of the collection as (doc_id, its name in golden sets)."""
    snapshot = bench.snapshot(collection, config)
    return tuple(
        (doc_id, document.external_id or document.source) for doc_id, document in sorted(snapshot.documents.items())
    )


def source_chunks(bench: WorkbenchFacade, collection: str, config: WorkbenchConfig) -> list[SourceChunk]:
    """The collection's chunks (for ``config``'s layout) long enough to ask about, with their language."""
    snapshot = bench.snapshot(collection, config)
    chunks = []
    for record in snapshot.chunks.values():
        if len(record.text.strip()) < config.synth.min_chunk_chars:
            continue
        document = snapshot.documents[record.doc_id]
        chunks.append(
            SourceChunk(
                record.chunk_id,
                record.doc_id,
                document.external_id or document.source,
                record.start,
                record.end,
                record.text,
                text_language(record.text),
            )
        )
    return chunks


def plan_synth(
    bench: WorkbenchFacade,
    collection: str,
    config: WorkbenchConfig,
    *,
    n: int,
    seed: int,
    out: str,
    kinds: str | Sequence[str] | None = KINDS,
) -> SynthPlan:
    """Check the endpoint and the limits, then sample: nothing is asked yet."""
    client = bench.llm()
    if not client.available:
        raise LlmUnavailable(client.unavailable_reason("golden synth"))
    limit = config.synth.max_items
    if not 1 <= n <= limit:
        raise ConfigError(
            f"--n {n} is outside 1 to synth.max_items ({limit}, default 2000); "
            "ask for fewer or raise it with --set synth.max_items=N"
        )
    out_path = golden_sets.path_for(out, bench.home)
    if out_path.exists() and read_summary(bench.home, out_path.stem) is None:
        raise golden_sets.GoldenSetError(
            f"golden set {out_path.stem!r} already exists ({out_path}) and was not written by golden synth; "
            "pick another --out so its judgements are not overwritten"
        )
    kinds = parse_kinds(kinds)
    chunks = source_chunks(bench, collection, config)
    if not chunks:
        raise ValueError(
            f"collection {collection!r} has no chunk of at least synth.min_chunk_chars "
            f"({config.synth.min_chunk_chars}) characters to write questions from"
        )
    tokenizer = Bm25Tokenizer()
    tasks = plan_tasks(chunks, n, kinds, seed, tokenizer.tokenize, config.synth.min_per_document)
    folder = Path(bench.home) / "golden_sets" / SYNTH_FOLDER
    run_key = hashlib.sha256(f"{collection}|{client.cache_model}|{PROMPT_VERSION}".encode()).hexdigest()[:8]
    return SynthPlan(
        collection,
        out_path.stem,
        tasks,
        SynthLimits.of(config.synth),
        client.cache_model,
        out_path,
        folder / f"{out_path.stem}.{run_key}.journal.jsonl",
        folder / f"{out_path.stem}.summary.json",
        config,
        seed,
        kinds,
        collection_documents(bench, collection, config),
    )


def run_synth(
    bench: WorkbenchFacade, plan: SynthPlan, progress: Callable[[int, int], None] | None = None
) -> SynthReport:
    """Ask for every unfinished task, verify, and write the set and its summary (also when the
    endpoint failed midway: what was finished is kept)."""
    client = bench.llm()
    model = plan.config.embedding.key
    markdowns: dict[int, str] = {}

    def markdown_of(doc_id: int) -> str:
        if doc_id not in markdowns:
            markdowns[doc_id] = bench.markdown(doc_id)[0]
        return markdowns[doc_id]

    def embed(texts: list[str]) -> np.ndarray:
        bench.embed_queries(model, texts)
        return np.stack([bench.embed_query(model, text) for text in texts])

    verifier = Verifier(markdown_of, Bm25Tokenizer().tokenize, embed, plan.limits, client.model, plan.documents)
    report = run_tasks(plan.tasks, client, verifier, plan.journal, plan.limits, progress)
    kept = _keep_review(
        plan.out_path, [golden_sets.parse_line(json.dumps(item, ensure_ascii=False), plan.out) for item in report.kept]
    )
    if kept:
        golden_sets.save(golden_sets.GoldenSet(plan.out, tuple(kept)), plan.out_path)
    summary = {
        "collection": plan.collection,
        "set": plan.out,
        "path": str(plan.out_path),
        "model": client.model,
        "seed": plan.seed,
        "n": len(plan.tasks),
        "kinds": list(plan.kinds),
        **report.summary(),
    }
    plan.summary_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.summary_path, json.dumps(summary, ensure_ascii=False, indent=1))
    return report


def _keep_review(path: Path, generated: list[golden_sets.GoldenQuery]) -> list[golden_sets.GoldenQuery]:
    """A rerun rewrites the set from its journal: items reviewed since keep their review (an
    edited question, accepted), and items rejected in review stay out."""
    if not path.exists():
        return generated
    reviewed = {
        q.id: q for q in golden_sets.load(path).queries if (q.meta or {}).get("review") in ("accepted", "edited")
    }
    rejected_log = path.parent / SYNTH_FOLDER / f"{path.stem}.rejected-in-review.jsonl"
    rejected = (
        {json.loads(line)["id"] for line in rejected_log.read_text(encoding="utf-8").splitlines() if line.strip()}
        if rejected_log.exists()
        else set()
    )
    return [reviewed.get(q.id, q) for q in generated if q.id not in rejected]


def read_summary(home: Path, name: str) -> dict[str, Any] | None:
    path = Path(home) / "golden_sets" / SYNTH_FOLDER / f"{name}.summary.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
