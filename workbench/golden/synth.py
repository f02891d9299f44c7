"""Turning LLM replies into golden items: verify each, keep it or count why not.

For each task (``workbench.golden.sampling``) the endpoint writes a question and quotes the
sentence that answers it. An item is kept only when every quote is found in its document's
canonical Markdown (``workbench.golden.quotes``); the span found becomes the judgement, so the
item is span-level and survives re-chunking. Every other reply is rejected with one reason:

- ``malformed reply``: not exactly ``{"question": ..., "quote": ...}``;
- ``empty``: no question, or an empty quote where one is needed;
- ``quote not found``: a quote that is not the document's text;
- ``quote repeated too often``: a quote that occurs in more than ``synth.max_quote_places`` places
  of the collection (boilerplate). A quote that occurs in several places, up to that limit, is
  judged relevant at every place (all documents searched): a retriever that finds any copy of
  the sentence found it, and no one occurrence is more right than another;
- ``question copies the quote``: more than ``synth.max_overlap`` of the question's BM25 tokens
  (jieba words for Chinese) are in its quote: such a set flatters BM25;
- ``near-duplicate question``: embedding cosine above ``synth.max_similarity`` with a kept one.

Tasks run in batches, and each finished task (kept or rejected) is appended to a journal at
once: if the endpoint dies midway the run stops, keeps what it finished, and the same command
resumes from the journal without asking again (the reply cache covers replies too).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.config import SynthConfig
from workbench.evaluation.judged import JUDGED_KEY
from workbench.golden.prompts import (
    UNANSWERABLE,
    ItemReply,
    estimate_tokens,
    parse_item_reply,
    prompt_hash,
    synth_request,
)
from workbench.golden.quotes import FoundQuote, find_quotes
from workbench.golden.sampling import SourceChunk, SynthTask, plan_counts
from workbench.llm.client import LlmCall, LlmClient, LlmRequest

MALFORMED, EMPTY, QUOTE_NOT_FOUND = "malformed reply", "empty", "quote not found"
COPIES_QUOTE, NEAR_DUPLICATE = "question copies the quote", "near-duplicate question"
REPEATED_QUOTE = "quote repeated too often"
REJECT_REASONS = (QUOTE_NOT_FOUND, REPEATED_QUOTE, MALFORMED, COPIES_QUOTE, NEAR_DUPLICATE, EMPTY)
#: replies the estimate allows for a question and its quote
COMPLETION_TOKENS_ESTIMATE = 80
#: how the client's errors for a reply its parser refused begin (``LlmClient._ask``)
REPLY_PROBLEMS = ("reply rejected", "unusable reply")

#: tasks asked, verified and journalled together: one cache lookup, one embedding pass, one cache write
BATCH_SIZE = 32
Tokenize = Callable[[str], list[str]]
Embed = Callable[[list[str]], np.ndarray]
MarkdownOf = Callable[[int], str]
#: the collection's documents as (doc_id, name in golden sets), searched for every copy of a quote
Documents = Sequence[tuple[int, str]]
#: places one quote may be judged at before the question is dropped (``synth.max_quote_places``)
MAX_QUOTE_PLACES = 20


@dataclass(frozen=True)
class SynthLimits:
    max_overlap: float
    max_similarity: float
    max_chunk_chars: int
    max_tokens: int
    timeout_s: float
    max_quote_places: int = MAX_QUOTE_PLACES

    @classmethod
    def of(cls, synth_config: SynthConfig) -> SynthLimits:
        return cls(
            synth_config.max_overlap,
            synth_config.max_similarity,
            synth_config.max_chunk_chars,
            synth_config.max_tokens,
            synth_config.timeout_s,
            synth_config.max_quote_places,
        )


@dataclass(frozen=True)
class Outcome:
    """What became of one task: a kept golden query line, or a reject reason."""

    task_key: str
    position: int
    kind: str
    item: dict[str, Any] | None = None  # the golden-set line (id, query, relevant, meta), as JSON
    reason: str = ""
    detail: str = ""
    tokens: int = 0

    def to_json(self) -> str:
        return json.dumps(
            {
                "task": self.task_key,
                "position": self.position,
                "kind": self.kind,
                "item": self.item,
                "reason": self.reason,
                "detail": self.detail,
                "tokens": self.tokens,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, line: str) -> Outcome:
        data = json.loads(line)
        return cls(
            data["task"],
            data["position"],
            data["kind"],
            data.get("item"),
            data.get("reason", ""),
            data.get("detail", ""),
            data.get("tokens", 0),
        )


@dataclass
class SynthReport:
    planned: int
    outcomes: list[Outcome] = field(default_factory=list)
    #: planned questions per document and per language (``sampling.plan_counts``)
    planned_documents: dict[str, int] = field(default_factory=dict)
    planned_languages: dict[str, int] = field(default_factory=dict)
    endpoint_calls: int = 0
    cached_calls: int = 0
    resumed: int = 0  # tasks finished by an earlier run (read from the journal)
    stopped: str = ""  # why the run stopped before the end (the endpoint failed)
    spent_tokens: int = 0  # tokens of this run's endpoint calls (resumed and cached tasks cost none)

    @property
    def kept(self) -> list[dict[str, Any]]:
        return [o.item for o in sorted(self.outcomes, key=lambda o: o.position) if o.item is not None]

    @property
    def rejected(self) -> dict[str, int]:
        counts = Counter(o.reason for o in self.outcomes if o.item is None)
        return {reason: counts.get(reason, 0) for reason in REJECT_REASONS}

    @property
    def mean_overlap(self) -> float | None:
        values = [item["meta"]["overlap"] for item in self.kept if item["meta"].get("overlap") is not None]
        return round(statistics.fmean(values), 4) if values else None

    @property
    def tokens(self) -> int:
        return sum(o.tokens for o in self.outcomes)

    def spread(self) -> dict[str, dict[str, dict[str, int]]]:
        """Planned and kept questions per document and per language; a question counts for the
        document and language of its first source chunk."""
        kept_documents = Counter(item["meta"]["source"][0]["doc"] for item in self.kept)
        kept_languages = Counter(item["meta"].get("language") or "none" for item in self.kept)
        return {
            "documents": {
                doc: {"planned": self.planned_documents.get(doc, 0), "kept": kept_documents.get(doc, 0)}
                for doc in sorted(set(self.planned_documents) | set(kept_documents))
            },
            "languages": {
                language: {"planned": self.planned_languages.get(language, 0), "kept": kept_languages.get(language, 0)}
                for language in sorted(set(self.planned_languages) | set(kept_languages))
            },
        }

    def repeated_quotes(self) -> int:
        """Kept questions whose quote occurs in more than one place (each judged at all of them)."""
        return sum(1 for item in self.kept if any(places > 1 for places in item["meta"].get("places", ())))

    @property
    def complete(self) -> bool:
        return not self.stopped and len(self.outcomes) == self.planned

    def summary(self) -> dict[str, Any]:
        return {
            "planned": self.planned,
            "kept": len(self.kept),
            "rejected": self.rejected,
            "mean_overlap": self.mean_overlap,
            "endpoint_calls": self.endpoint_calls,
            "cached_calls": self.cached_calls,
            "resumed": self.resumed,
            "tokens": self.tokens,
            "tokens_this_run": self.spent_tokens,
            "kinds": dict(Counter(item["meta"]["kind"] for item in self.kept)),
            **self.spread(),
            "repeated_quotes": self.repeated_quotes(),
            "complete": self.complete,
            "stopped": self.stopped,
        }

    def describe(self) -> str:
        """``kept 26 of 30 (30 planned); mean question/quote overlap 0.365`` (rejects: ``rejected``)."""
        overlap = "n/a" if self.mean_overlap is None else f"{self.mean_overlap:.3f}"
        return (
            f"kept {len(self.kept)} of {len(self.outcomes)} ({self.planned} planned); "
            f"mean question/quote overlap {overlap}"
        )


@dataclass(frozen=True)
class Estimate:
    calls: int  # requests at most (tasks not finished yet; cached replies cost nothing)
    prompt_tokens: int
    completion_tokens: int
    finished: int  # tasks the journal already holds

    def describe(self) -> str:
        done = f"; {self.finished} already done" if self.finished else ""
        return (
            f"at most {self.calls:,} LLM calls, about {self.prompt_tokens:,} prompt + "
            f"{self.completion_tokens:,} completion tokens{done}; replies already cached cost nothing"
        )


# -- measuring ----------------------------------------------------------------------------------


def token_overlap(question: str, quote: str, tokenize: Tokenize) -> float:
    """Share of the question's distinct BM25 tokens that are also in the quote (0 without tokens)."""
    asked = set(tokenize(question))
    return len(asked & set(tokenize(quote))) / len(asked) if asked else 0.0


def request_for(task: SynthTask, limits: SynthLimits) -> LlmRequest:
    return synth_request(
        task.kind,
        [c.text[: limits.max_chunk_chars] for c in task.chunks],
        task.language,
        f"task {task.position + 1} ({task.kind}, chunk {task.chunks[0].chunk_id})",
        limits.max_tokens,
    )


def estimate(tasks: Sequence[SynthTask], limits: SynthLimits, finished: Set[str] = frozenset()) -> Estimate:
    todo = [task for task in tasks if task.key not in finished]
    # a synth request's messages are all text (no image parts)
    prompt = sum(
        estimate_tokens("".join(c for _, c in request_for(task, limits).messages if isinstance(c, str)))
        for task in todo
    )
    return Estimate(len(todo), prompt, COMPLETION_TOKENS_ESTIMATE * len(todo), len(tasks) - len(todo))


# -- journal ------------------------------------------------------------------------------------


def read_journal(path: Path) -> dict[str, Outcome]:
    """Finished tasks by key; a torn last line (a crash mid-write) is ignored."""
    found: dict[str, Outcome] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                outcome = Outcome.from_json(line)
            except (ValueError, KeyError):
                continue
            found[outcome.task_key] = outcome
    return found


# -- running ------------------------------------------------------------------------------------


class Verifier:
    """Checks replies in task order; holds the kept questions' vectors for the duplicate check."""

    def __init__(
        self,
        markdown_of: MarkdownOf,
        tokenize: Tokenize,
        embed: Embed,
        limits: SynthLimits,
        model: str,
        documents: Documents = (),
    ):
        self.markdown_of, self.tokenize, self.embed = markdown_of, tokenize, embed
        self.limits, self.model = limits, model
        self.documents = documents
        self.vectors: list[np.ndarray] = []
        self._prepared: dict[str, np.ndarray] = {}

    def remember(self, questions: list[str]) -> None:
        if questions:
            self.vectors.extend(_normalised(self.embed(questions)))

    def prepare(self, tasks: Sequence[SynthTask], calls: Sequence[LlmCall]) -> None:
        """Embed a batch's questions in one call (one at a time costs a model pass each)."""
        questions = []
        for task, call in zip(tasks, calls, strict=False):
            try:
                question = parse_item_reply(call.text, task.kind).question
            except ValueError:
                continue
            if question and question not in self._prepared:
                questions.append(question)
        questions = list(dict.fromkeys(questions))
        if questions:
            self._prepared.update(zip(questions, _normalised(self.embed(questions)), strict=False))

    def _vector(self, question: str) -> np.ndarray:
        if question not in self._prepared:
            self._prepared[question] = _normalised(self.embed([question]))[0]
        return self._prepared[question]

    def check(self, task: SynthTask, call: LlmCall) -> Outcome:
        tokens = 0 if call.cached else (call.total_tokens or 0)

        def reject(reason: str, detail: str) -> Outcome:
            return Outcome(task.key, task.position, task.kind, None, reason, detail[:300], tokens)

        try:
            reply: ItemReply = parse_item_reply(call.text, task.kind)
        except ValueError as problem:
            shown = str(problem) if "; got " in str(problem) else f"{problem}; got {call.text[:160]!r}"
            return reject(MALFORMED, shown)
        if not reply.question or any(not quote for quote in reply.quotes):
            return reject(EMPTY, f"got {call.text[:160]!r}")
        relevant: list[dict[str, Any]] = []
        places: list[int] = []
        for chunk, quote in zip(task.chunks, reply.quotes, strict=False):
            if not find_quotes(self.markdown_of(chunk.doc_id), quote):
                return reject(QUOTE_NOT_FOUND, f"{quote[:160]!r} is not in {chunk.doc}")
            found = self.places(chunk, quote)
            if len(found) > self.limits.max_quote_places:
                return reject(
                    REPEATED_QUOTE,
                    f"{quote[:120]!r} occurs in {len(found)} places, more than synth.max_quote_places "
                    f"{self.limits.max_quote_places} (raise it with --set synth.max_quote_places=N)",
                )
            places.append(len(found))
            for doc, markdown, place in found:
                span = {"doc": doc, "start": place.start, "end": place.end, "quote": place.text(markdown)}
                if not any(r["doc"] == doc and r["start"] == place.start for r in relevant):
                    relevant.append({**span, "match": place.method})
        overlap = None
        if reply.quotes:
            overlap = round(token_overlap(reply.question, " ".join(reply.quotes), self.tokenize), 4)
            if overlap > self.limits.max_overlap:
                return reject(
                    COPIES_QUOTE,
                    f"overlap {overlap:.2f} > synth.max_overlap {self.limits.max_overlap:g}: {reply.question[:160]!r}",
                )
        vector = self._vector(reply.question)
        if self.vectors:
            similarity = float(np.max(np.stack(self.vectors) @ vector))
            if similarity > self.limits.max_similarity:
                return reject(
                    NEAR_DUPLICATE,
                    f"cosine {similarity:.3f} > synth.max_similarity "
                    f"{self.limits.max_similarity:g}: {reply.question[:160]!r}",
                )
        self.vectors.append(vector)
        meta = {
            "kind": task.kind,
            "model": self.model,
            "prompt": call.prompt_version,
            "prompt_hash": prompt_hash(task.kind),
            "language": task.language,
            "source": [c.about() for c in task.chunks],
            "overlap": overlap,
            "match": [r.pop("match") for r in relevant],
            "places": places,
            "review": "pending",
            JUDGED_KEY: "span",  # judged by the passage its quote was found in (workbench.evaluation.judged)
        }
        item = {"id": f"synth-{task.position + 1}", "query": reply.question, "relevant": relevant, "meta": meta}
        return Outcome(task.key, task.position, task.kind, item, tokens=tokens)

    def places(self, chunk: SourceChunk, quote: str) -> list[tuple[str, str, FoundQuote]]:
        """Every place the quote occurs: in its own document first, then in every other document
        of the collection (``documents``), as (document name, its Markdown, the place)."""
        own = self.markdown_of(chunk.doc_id)
        found = [(chunk.doc, own, place) for place in find_quotes(own, quote)]
        for doc_id, name in self.documents:
            if doc_id != chunk.doc_id:
                markdown = self.markdown_of(doc_id)
                found.extend((name, markdown, place) for place in find_quotes(markdown, quote))
        return found


def run_tasks(
    tasks: Sequence[SynthTask],
    client: LlmClient,
    verifier: Verifier,
    journal: Path,
    limits: SynthLimits,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = 0,
) -> SynthReport:
    """Ask, verify and journal every task not finished yet; stop at the first endpoint failure."""
    report = SynthReport(planned=len(tasks))
    report.planned_documents, report.planned_languages = plan_counts(tasks)
    finished = read_journal(journal)
    keys = {task.key for task in tasks}
    report.outcomes = [o for key, o in finished.items() if key in keys]
    report.resumed = len(report.outcomes)
    verifier.remember([o.item["query"] for o in sorted(report.outcomes, key=lambda o: o.position) if o.item])
    todo = [task for task in tasks if task.key not in finished]
    batch_size = batch_size or BATCH_SIZE
    journal.parent.mkdir(parents=True, exist_ok=True)
    if progress:
        progress(len(report.outcomes), len(tasks))
    with journal.open("a", encoding="utf-8") as handle:
        for begin in range(0, len(todo), batch_size):
            batch = todo[begin : begin + batch_size]
            before_endpoint, before_cached = client.endpoint_calls, client.cached_calls
            calls = client.complete_many(
                [request_for(task, limits) for task in batch], timeout_s=limits.timeout_s, parse=_parser_for(batch)
            )
            report.endpoint_calls += client.endpoint_calls - before_endpoint
            report.cached_calls += client.cached_calls - before_cached
            verifier.prepare(batch, calls)
            for task, call in zip(batch, calls, strict=False):
                if not call.ok and not call.error.startswith(REPLY_PROBLEMS):  # the endpoint failed, not the reply
                    report.stopped = call.error
                    continue
                outcome = verifier.check(task, call)
                report.outcomes.append(outcome)
                report.spent_tokens += outcome.tokens
                handle.write(outcome.to_json() + "\n")
                handle.flush()
            if progress:
                progress(len(report.outcomes), len(tasks))
            if report.stopped:
                break
    return report


def _parser_for(batch: Sequence[SynthTask]) -> Callable[[str], None]:
    """The client caches only replies this accepts: strict JSON of the right shape. The kind is
    read from the reply's own shape here; the verifier reads it again strictly per task."""

    def parse(reply: str) -> None:
        for kind in dict.fromkeys(task.kind for task in batch):
            try:
                parse_item_reply(reply, kind)
                return
            except ValueError as problem:
                last = problem
        raise last

    return parse


def _normalised(matrix: npt.ArrayLike) -> list[np.ndarray]:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return list(matrix / np.where(norms == 0, 1.0, norms))


def is_unanswerable(item: Mapping[str, Any]) -> bool:
    return bool(item.get("meta", {}).get("kind") == UNANSWERABLE)
