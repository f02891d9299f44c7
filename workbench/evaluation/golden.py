"""Golden sets: plain JSONL files of queries and what is relevant to them.

One query per line::

    {"id": "q1", "query": "how do I ...", "answer": "optional reference answer",
     "relevant": [{"doc": "guide.md", "grade": 2},
                  {"doc": "guide.md", "start": 120, "end": 180, "quote": "exact text", "grade": 1}]}

``doc`` names a document by external id, file name or catalog id. An item with ``start``/``end``
(character offsets into the document's canonical Markdown) or a ``quote`` is span-level: a chunk
is relevant when it overlaps the span (or contains the quote). An item with neither makes the
whole document the unit. ``grade`` (default 1) is the graded relevance for nDCG.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


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

    def to_dict(self) -> dict:
        data: dict = {"doc": self.doc}
        if self.grade != 1:
            data["grade"] = self.grade
        if self.start is not None:
            data["start"], data["end"] = self.start, self.end
        if self.quote is not None:
            data["quote"] = self.quote
        return data


@dataclass(frozen=True)
class GoldenQuery:
    id: str
    query: str
    relevant: tuple[RelevantItem, ...]
    answer: str | None = None

    def doc_grades(self) -> dict[str, int]:
        """Document-level judgements: each document's highest grade among its items."""
        grades: dict[str, int] = {}
        for item in self.relevant:
            grades[item.doc] = max(grades.get(item.doc, 0), item.grade)
        return grades

    def to_dict(self) -> dict:
        data = {"id": self.id, "query": self.query, "relevant": [item.to_dict() for item in self.relevant]}
        if self.answer:
            data["answer"] = self.answer
        return data


@dataclass(frozen=True)
class GoldenSet:
    name: str
    queries: tuple[GoldenQuery, ...]
    path: Path | None = field(default=None, compare=False)

    def by_query_text(self) -> dict[str, GoldenQuery]:
        return {q.query.strip(): q for q in self.queries}

    def __len__(self) -> int:
        return len(self.queries)


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
    if not isinstance(data["query"], str) or not data["query"].strip():
        raise GoldenSetError(f"{where}: 'query' must be a non-empty string")
    if not isinstance(data["relevant"], list):
        raise GoldenSetError(f"{where}: 'relevant' must be a list of {{\"doc\": ...}} objects")
    items = []
    for position, raw in enumerate(data["relevant"], start=1):
        items.append(_parse_item(raw, f"{where}, relevant item {position}"))
    answer = data.get("answer")
    return GoldenQuery(str(data["id"]), data["query"], tuple(items), answer if isinstance(answer, str) else None)


def _parse_item(raw, where: str) -> RelevantItem:
    if isinstance(raw, str):
        return RelevantItem(doc=raw)
    if not isinstance(raw, dict) or "doc" not in raw:
        raise GoldenSetError(f"{where}: expected an object with a 'doc' key (or a document name string)")
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
    if quote is not None and (not isinstance(quote, str) or not quote):
        raise GoldenSetError(f"{where}: 'quote' must be a non-empty string")
    return RelevantItem(doc=str(raw["doc"]), grade=grade, start=start, end=end, quote=quote)


def load(path: Path) -> GoldenSet:
    path = Path(path)
    if not path.exists():
        raise GoldenSetError(f"golden set file {path} does not exist")
    queries = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        query = parse_line(line, f"{path.name}:{number}")
        if query.id in seen:
            raise GoldenSetError(f"{path.name}:{number}: query id {query.id!r} already used on line {seen[query.id]}")
        seen[query.id] = number
        queries.append(query)
    if not queries:
        raise GoldenSetError(f"{path.name}: no queries; add one JSON object per line")
    return GoldenSet(path.stem, tuple(queries), path)


def save(golden: GoldenSet, path: Path) -> Path:
    from store.atomic import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in golden.queries)
    atomic_write_text(path, text)
    return path


def search_paths(home: Path, project_dir: Path | None = None) -> list[Path]:
    """Golden sets live in the home (imports) and in the project's ``golden_sets/`` (versioned)."""
    project_dir = project_dir or Path(__file__).resolve().parents[2]
    return [home / "golden_sets", project_dir / "golden_sets", Path.cwd() / "golden_sets"]


def find(name_or_path: str, home: Path) -> GoldenSet:
    candidate = Path(name_or_path)
    if candidate.suffix == ".jsonl" and candidate.exists():
        return load(candidate)
    for folder in search_paths(home):
        path = folder / f"{name_or_path}.jsonl"
        if path.exists():
            return load(path)
    raise GoldenSetError(
        f"golden set {name_or_path!r} not found; known: {', '.join(available(home)) or 'none'} "
        "(or pass a path to a .jsonl file)"
    )


def available(home: Path) -> list[str]:
    names = set()
    for folder in search_paths(home):
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.jsonl"))
    return sorted(names)
