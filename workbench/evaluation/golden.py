"""Golden sets: plain JSONL files of queries and what is relevant to them.

One query per line::

    {"id": "q1", "query": "how do I ...", "answer": "optional reference answer",
     "relevant": [{"doc": "guide.md", "grade": 2},
                  {"doc": "guide.md", "start": 120, "end": 180, "quote": "exact text", "grade": 1}]}

``doc`` names a document by external id or file name (``guide.md`` or ``guide``); catalog ids
are not accepted because they change when a collection is rebuilt, and golden sets are meant
to outlive that (and to be versioned in git). An item with ``start``/``end`` (character offsets
into the document's canonical Markdown, end exclusive) or a ``quote`` is span-level: a chunk is
relevant when it overlaps the span or contains the quote (``workbench.evaluation.relevance``).
An item with neither makes the whole document the unit. ``grade`` (default 1) is the graded
relevance used as the nDCG gain. A string item (``"guide.md"``) is short for ``{"doc": ...}``.

A query whose ``relevant`` list is empty has no answer in the collection: it is left out of the
ranking metrics, and evaluation checks instead that the confidence verdict says ``no_answer``
(abstention precision and recall, ``workbench.evaluation.abstention``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

QUERY_KEYS = frozenset({"id", "query", "relevant", "answer", "meta"})
ITEM_KEYS = frozenset({"doc", "grade", "start", "end", "quote"})

_WRITE_LOCK = threading.Lock()  # the app's sessions are threads; keep read-modify-write whole


class GoldenSetError(ValueError):
    """A golden set line is malformed; the message names the file and line."""


@dataclass(frozen=True)
class RelevantItem:
    doc: str
    grade: int = 1
    start: int | None = None
    end: int | None = None
    quote: str | None = None

    @property
    def is_span(self) -> bool:
        return self.start is not None or self.quote is not None

    def same_target(self, other: RelevantItem) -> bool:
        """Whether two items judge the same thing (grades aside)."""
        return (self.doc, self.start, self.end, self.quote) == (other.doc, other.start, other.end, other.quote)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"doc": self.doc}
        if self.start is not None:
            data["start"], data["end"] = self.start, self.end
        if self.quote is not None:
            data["quote"] = self.quote
        if self.grade != 1:
            data["grade"] = self.grade
        return data


@dataclass(frozen=True)
class GoldenQuery:
    id: str
    query: str
    relevant: tuple[RelevantItem, ...]
    answer: str | None = None
    meta: dict[str, Any] | None = field(default=None, compare=False)  # free-form JSON

    @property
    def is_no_answer(self) -> bool:
        """An empty ``relevant`` list: the collection holds no answer (evaluation checks abstention)."""
        return not self.relevant

    @property
    def has_spans(self) -> bool:
        return any(item.is_span for item in self.relevant)

    def doc_grades(self) -> dict[str, int]:
        """Document-level judgements: each document's highest grade among its items."""
        grades: dict[str, int] = {}
        for item in self.relevant:
            grades[item.doc] = max(grades.get(item.doc, 0), item.grade)
        return {doc: grade for doc, grade in grades.items() if grade > 0}

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "query": self.query,
            "relevant": [item.to_dict() for item in self.relevant],
        }
        if self.answer:
            data["answer"] = self.answer
        if self.meta:
            data["meta"] = self.meta
        return data


@dataclass(frozen=True)
class GoldenSet:
    name: str
    queries: tuple[GoldenQuery, ...]
    path: Path | None = field(default=None, compare=False)

    def by_query_text(self) -> dict[str, GoldenQuery]:
        return {q.query.strip(): q for q in self.queries}

    def by_id(self) -> dict[str, GoldenQuery]:
        return {q.id: q for q in self.queries}

    def find_query(self, id_or_text: str) -> GoldenQuery | None:
        """A query by id, else by its text (whitespace-trimmed)."""
        return self.by_id().get(str(id_or_text)) or self.by_query_text().get(str(id_or_text).strip())

    def __len__(self) -> int:
        return len(self.queries)


# -- parsing ------------------------------------------------------------------------------------


def parse_line(line: str, where: str) -> GoldenQuery:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise GoldenSetError(f"{where}: not valid JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(data, dict):
        raise GoldenSetError(f"{where}: expected a JSON object with id, query and relevant")
    for key in ("id", "query", "relevant"):
        if key not in data:
            raise GoldenSetError(f"{where}: missing {key!r}; each line needs id, query and relevant")
    unknown = sorted(set(data) - QUERY_KEYS)
    if unknown:
        raise GoldenSetError(
            f"{where}: unknown key {unknown[0]!r}; a query line has {', '.join(sorted(QUERY_KEYS))} "
            "(put free-form data under 'meta')"
        )
    query_id = data["id"]
    if isinstance(query_id, bool) or not isinstance(query_id, (str, int)) or not str(query_id).strip():
        raise GoldenSetError(f"{where}: 'id' must be a non-empty string or integer, got {query_id!r}")
    if not isinstance(data["query"], str) or not data["query"].strip():
        raise GoldenSetError(f"{where}: 'query' must be a non-empty string")
    if not isinstance(data["relevant"], list):
        raise GoldenSetError(f"{where}: 'relevant' must be a list of {{\"doc\": ...}} objects")
    items = tuple(
        parse_item(raw, f"{where}, relevant item {position}") for position, raw in enumerate(data["relevant"], 1)
    )
    answer = data.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise GoldenSetError(f"{where}: 'answer' must be a string")
    meta = data.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise GoldenSetError(f"{where}: 'meta' must be a JSON object")
    return GoldenQuery(str(query_id).strip(), data["query"], items, answer or None, meta)


def parse_item(raw: object, where: str = "relevant item") -> RelevantItem:
    """One relevant item from its JSON form (a dict, or a bare document name)."""
    if isinstance(raw, str):
        if not raw.strip():
            raise GoldenSetError(f"{where}: the document name is empty")
        return RelevantItem(doc=raw.strip())
    if not isinstance(raw, dict) or "doc" not in raw:
        raise GoldenSetError(f"{where}: expected an object with a 'doc' key (or a document name string)")
    unknown = sorted(set(raw) - ITEM_KEYS)
    if unknown:
        raise GoldenSetError(f"{where}: unknown key {unknown[0]!r}; an item has {', '.join(sorted(ITEM_KEYS))}")
    doc = raw["doc"]
    if isinstance(doc, bool) or not isinstance(doc, (str, int)) or not str(doc).strip():
        raise GoldenSetError(f"{where}: 'doc' must name a document (external id or file name), got {doc!r}")
    grade = raw.get("grade", 1)
    if not isinstance(grade, int) or isinstance(grade, bool) or grade < 0:
        raise GoldenSetError(f"{where}: 'grade' must be a non-negative integer, got {grade!r}")
    start, end = raw.get("start"), raw.get("end")
    if (start is None) != (end is None):
        raise GoldenSetError(f"{where}: give both 'start' and 'end' or neither")
    if start is not None:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not 0 <= start < end:
            raise GoldenSetError(f"{where}: need integers 0 <= start < end, got start={start!r} end={end!r}")
    quote = raw.get("quote")
    if quote is not None and (not isinstance(quote, str) or not quote.strip()):
        raise GoldenSetError(f"{where}: 'quote' must be a non-empty string")
    return RelevantItem(doc=str(doc).strip(), grade=grade, start=start, end=end, quote=quote)


def parse_text(text: str, name: str = "golden set") -> tuple[GoldenQuery, ...]:
    """Every query of a JSONL text; errors carry ``name:line``. Blank lines are ignored."""
    queries = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        query = parse_line(line, f"{name}:{number}")
        if query.id in seen:
            raise GoldenSetError(f"{name}:{number}: query id {query.id!r} already used on line {seen[query.id]}")
        seen[query.id] = number
        queries.append(query)
    return tuple(queries)


def load(path: Path) -> GoldenSet:
    path = Path(path)
    if not path.exists():
        raise GoldenSetError(f"golden set file {path} does not exist")
    queries = parse_text(path.read_text(encoding="utf-8"), path.name)
    if not queries:
        raise GoldenSetError(f"{path.name}: no queries; add one JSON object per line")
    return GoldenSet(path.stem, queries, path)


#: ``meta.review`` of an item the LLM wrote that nobody has reviewed yet (``workbench.golden.review``)
REVIEW_PENDING = "pending"


def unreviewed_count(golden: GoldenSet) -> int:
    """Items the LLM wrote that nobody has accepted, edited or rejected yet; 0 for a set written by hand."""
    return sum(1 for query in golden.queries if (query.meta or {}).get("review") == REVIEW_PENDING)


def unreviewed_note(golden: GoldenSet) -> str:
    """ "3 of the 20 queries of x were written by the LLM and are not reviewed yet …"; "" when none."""
    pending = unreviewed_count(golden)
    if not pending:
        return ""
    return (
        f"{pending} of the {len(golden)} queries of {golden.name} were written by the LLM and are not reviewed "
        "yet; they count as written (review them on the Evaluation page, From your documents)"
    )


def content_hash(golden: GoldenSet) -> str:
    """A short hash of what a set judges: each query's id, text, relevant items and answer, in
    order (``meta``, such as provenance and review notes, is left out). Runs record it, so two
    runs scored on different contents of a same-named set can be told apart."""
    import hashlib

    judged = [{key: value for key, value in q.to_dict().items() if key != "meta"} for q in golden.queries]
    return hashlib.sha256(json.dumps(judged, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def dumps(queries: tuple[GoldenQuery, ...] | list[GoldenQuery]) -> str:
    return "".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in queries)


def save(golden: GoldenSet, path: Path) -> Path:
    from store.atomic import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, dumps(golden.queries))
    return path


# -- finding ------------------------------------------------------------------------------------


def search_paths(home: Path, project_dir: Path | None = None) -> list[Path]:
    """Golden sets live in the home (imports) and in the project's ``golden_sets/`` (versioned)."""
    project_dir = project_dir or Path(__file__).resolve().parents[2]
    return list(dict.fromkeys([Path(home) / "golden_sets", project_dir / "golden_sets", Path.cwd() / "golden_sets"]))


def locate(name_or_path: str, home: Path) -> Path | None:
    """The file a golden set name (or ``.jsonl`` path) refers to, or None."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".jsonl" and candidate.exists():
        return candidate
    for folder in search_paths(home):
        path = folder / f"{name_or_path}.jsonl"
        if path.exists():
            return path
    return None


def find(name_or_path: str, home: Path) -> GoldenSet:
    path = locate(name_or_path, home)
    if path is None:
        raise GoldenSetError(
            f"golden set {name_or_path!r} not found; known: {', '.join(available(home)) or 'none'} "
            "(or pass a path to a .jsonl file)"
        )
    return load(path)


def available(home: Path) -> list[str]:
    names: set[str] = set()
    for folder in search_paths(home):
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.jsonl"))
    return sorted(names)


def path_for(name: str, home: Path) -> Path:
    """Where the golden set ``name`` lives, or where a new one is created (the home's folder)."""
    name = (name or "").strip()
    if not name or "/" in name or name.startswith("."):
        raise GoldenSetError(f"golden set name {name!r} is not valid; use letters, digits, '-' or '_'")
    return locate(name, home) or Path(home) / "golden_sets" / f"{name.removesuffix('.jsonl')}.jsonl"


# -- editing (the Retrieval lab's "mark relevant") ----------------------------------------------


def _read_queries(path: Path) -> list[GoldenQuery]:
    return list(parse_text(path.read_text(encoding="utf-8"), path.name)) if path.exists() else []


def _new_query_id(queries: list[GoldenQuery]) -> str:
    taken = {q.id for q in queries}
    number = len(queries) + 1
    while f"q{number}" in taken:
        number += 1
    return f"q{number}"


def mark_relevant(path: Path, query_id_or_text: str, item: RelevantItem | Mapping[str, Any] | str) -> GoldenQuery:
    """Record ``item`` as relevant to a query in the golden set file at ``path``; return the query.

    The query is found by id, else by text; an unknown one is appended as a new query whose text
    is ``query_id_or_text`` (the file is created if needed). An item judging the same document
    and span as an existing one replaces it, so marking again changes the grade; grade 0 removes
    the judgement (as ``unmark_relevant`` does).
    """
    path = Path(path)
    judged = item if isinstance(item, RelevantItem) else parse_item(item)
    with _WRITE_LOCK:
        queries = _read_queries(path)
        position = next((i for i, q in enumerate(queries) if q.id == str(query_id_or_text)), None)
        if position is None:
            position = next(
                (i for i, q in enumerate(queries) if q.query.strip() == str(query_id_or_text).strip()), None
            )
        if position is None:
            if not str(query_id_or_text).strip():
                raise GoldenSetError("cannot mark a hit relevant to an empty query; type the query first")
            queries.append(GoldenQuery(_new_query_id(queries), str(query_id_or_text).strip(), ()))
            position = len(queries) - 1
        query = queries[position]
        kept = [existing for existing in query.relevant if not existing.same_target(judged)]
        if judged.grade > 0:
            kept.append(judged)
        queries[position] = replace(query, relevant=tuple(kept))
        _write(path, queries)
    return queries[position]


def unmark_relevant(
    path: Path, query_id_or_text: str, item: RelevantItem | Mapping[str, Any] | str
) -> GoldenQuery | None:
    """Remove a judgement recorded by ``mark_relevant``; None when the query is not in the file."""
    path = Path(path)
    target = item if isinstance(item, RelevantItem) else parse_item(item)
    with _WRITE_LOCK:
        queries = _read_queries(path)
        for position, query in enumerate(queries):
            if query.id == str(query_id_or_text) or query.query.strip() == str(query_id_or_text).strip():
                kept = tuple(existing for existing in query.relevant if not existing.same_target(target))
                queries[position] = replace(query, relevant=kept)
                _write(path, queries)
                return queries[position]
    return None


def _write(path: Path, queries: list[GoldenQuery]) -> None:
    from store.atomic import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, dumps(queries))
