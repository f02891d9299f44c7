"""Query sets: questions without judgements, the input of a judging pool.

Read from a text file (one question per line), a CSV file (a ``query`` or ``question`` column,
else the first column; an optional ``id`` column), a JSONL file (objects with ``query`` and an
optional ``id``: a golden set is a query set too), or a list typed in the app. Saved as JSONL
``{"id": ..., "query": ...}`` under ``<home>/query_sets/NAME.jsonl``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.evaluation.golden import search_paths as golden_search_paths

QUERY_SETS_DIR = "query_sets"
FORMATS = (".txt", ".csv", ".jsonl")
MAX_QUERY_CHARS = 2000


class QuerySetError(ValueError):
    """A query set cannot be read; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Question:
    id: str
    query: str


@dataclass(frozen=True)
class QuerySet:
    name: str
    questions: tuple[Question, ...]

    def __len__(self) -> int:
        return len(self.questions)

    def dumps(self) -> str:
        return "".join(json.dumps({"id": q.id, "query": q.query}, ensure_ascii=False) + "\n" for q in self.questions)


def _clean(text: str) -> str:
    return " ".join(str(text).split())


def from_texts(name: str, texts: Sequence[str], ids: Iterable[str | None] | None = None) -> QuerySet:
    """A query set from question texts: blank ones dropped, duplicates (whitespace aside) kept once.

    ``ids`` (optional, one per text) are kept; missing ones become ``q1``, ``q2``, ...
    """
    ids = list(ids) if ids is not None else [None] * len(texts)
    questions, seen_text, seen_id = [], set(), set()
    for position, (raw_id, text) in enumerate(zip(ids, texts, strict=False), start=1):
        query = _clean(text)
        if not query or query in seen_text:
            continue
        if len(query) > MAX_QUERY_CHARS:
            raise QuerySetError(
                f"{name}: question {position} has {len(query)} characters; the most is "
                f"{MAX_QUERY_CHARS} (split it, or shorten it)"
            )
        query_id = _clean(raw_id) if raw_id not in (None, "") else f"q{position}"
        if query_id in seen_id:
            raise QuerySetError(f"{name}: id {query_id!r} is used twice; ids must be unique")
        seen_text.add(query)
        seen_id.add(query_id)
        questions.append(Question(query_id, query))
    if not questions:
        raise QuerySetError(
            f"{name}: no questions; give one per line (text), a 'query' column (CSV) or "
            '{"query": ...} objects (JSONL)'
        )
    return QuerySet(name, tuple(questions))


def parse(text: str, name: str, fmt: str) -> QuerySet:
    """A query set from file contents; ``fmt`` is ``.txt``, ``.csv`` or ``.jsonl``."""
    if fmt == ".txt":
        return from_texts(name, text.splitlines())
    if fmt == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        if not rows:
            raise QuerySetError(f"{name}: the CSV file is empty")
        header = [h.strip().lower() for h in rows[0]]
        column = next((header.index(c) for c in ("query", "question") if c in header), None)
        if column is None:  # no header: every row is a question in the first column
            return from_texts(name, [row[0] if row else "" for row in rows])
        id_column = header.index("id") if "id" in header else None
        body = [row for row in rows[1:] if len(row) > column]
        return from_texts(
            name,
            [row[column] for row in body],
            [row[id_column] if id_column is not None and len(row) > id_column else None for row in body],
        )
    if fmt == ".jsonl":
        texts, ids = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                raise QuerySetError(f"{name}:{number}: not valid JSON ({error.msg})") from None
            if not isinstance(data, dict) or not isinstance(data.get("query"), str):
                raise QuerySetError(f'{name}:{number}: expected an object with a "query" string')
            texts.append(data["query"])
            ids.append(str(data["id"]) if data.get("id") not in (None, "") else None)
        return from_texts(name, texts, ids)
    raise QuerySetError(f"{name}: unknown query set format {fmt!r}; use {', '.join(FORMATS)}")


def load(path: Path) -> QuerySet:
    path = Path(path)
    if not path.exists():
        raise QuerySetError(f"query set file {path} does not exist")
    return parse(path.read_text(encoding="utf-8-sig"), path.stem, path.suffix.lower())


def folder(home: Path) -> Path:
    return Path(home) / QUERY_SETS_DIR


def available(home: Path) -> list[str]:
    here = folder(home)
    return sorted(p.stem for p in here.glob("*.jsonl")) if here.is_dir() else []


def find(name_or_path: str, home: Path) -> QuerySet:
    """A query set by name (``<home>/query_sets``, then the golden sets) or by file path."""
    candidate = Path(name_or_path)
    if candidate.suffix.lower() in FORMATS and candidate.exists():
        return load(candidate)
    for place in [folder(home), *golden_search_paths(home)]:
        path = place / f"{name_or_path}.jsonl"
        if path.exists():
            return load(path)
    raise QuerySetError(
        f"query set {name_or_path!r} not found; known: {', '.join(available(home)) or 'none'} "
        f"(or a golden set's name, or a path to a {', '.join(FORMATS)} file)"
    )


def save(query_set: QuerySet, home: Path) -> Path:
    from store.atomic import atomic_write_text

    name = query_set.name.strip()
    if not name or "/" in name or name.startswith("."):
        raise QuerySetError(f"query set name {name!r} is not valid; use letters, digits, '-' or '_'")
    path = folder(home) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, query_set.dumps())
    return path
