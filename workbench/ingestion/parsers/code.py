"""Source files and Jupyter notebooks as Markdown the ``code`` chunking strategy can cut.

A source file becomes one fenced block tagged with its language (so every strategy treats it as
code: a ``# comment`` never becomes a heading); a notebook becomes its Markdown cells as they
are and its code cells as fenced blocks in the kernel's language. Outputs are left out: they
are results, often large, rarely what anyone searches for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import PurePath

from workbench.config import IngestConfig
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers
from workbench.ingestion.parsers.text import decode_text

#: file extension -> (document type, fence language)
CODE_TYPES: Mapping[str, tuple[str, str]] = {
    ".py": ("py", "python"),
    ".js": ("js", "javascript"),
    ".ts": ("ts", "typescript"),
    ".java": ("java", "java"),
    ".go": ("go", "go"),
    ".rs": ("rs", "rust"),
    ".c": ("c", "c"),
    ".cpp": ("cpp", "cpp"),
    ".h": ("h", "c"),
    ".sh": ("sh", "bash"),
    ".sql": ("sql", "sql"),
}
CODE_DOC_TYPES = frozenset({doc_type for doc_type, _ in CODE_TYPES.values()} | {"ipynb"})


def fenced(code: str, language: str) -> str:
    """``code`` in a fence longer than any backtick run inside it, so nothing can close it early."""
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def code_document(text: str, language: str) -> str:
    return fenced(text, language) if text.strip() else ""


def notebook_document(text: str) -> str:
    """A notebook's Markdown: Markdown cells verbatim, code cells fenced; ValueError when it is not one."""
    try:
        notebook = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(
            "not a valid Jupyter notebook (the file is not JSON); re-save it from Jupyter and upload it again"
        ) from error
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError(
            "not a Jupyter notebook (no list of cells); re-save it from Jupyter (nbformat 4) and upload it again"
        )
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    language = str(
        (metadata.get("kernelspec") or {}).get("language")
        or (metadata.get("language_info") or {}).get("name")
        or "python"
    )
    parts = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if not source.strip():
            continue
        kind = cell.get("cell_type")
        if kind == "markdown":
            parts.append(source.strip())
        elif kind == "code":
            parts.append(fenced(source, language))
    return "\n\n".join(parts)


def extract_code(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    _, language = CODE_TYPES[PurePath(source).suffix.lower()]
    return Extraction((code_document(decode_text(data, source), language),), title_hint=PurePath(source).name)


def extract_notebook(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    try:
        markdown = notebook_document(decode_text(data, source))
    except ValueError as error:
        raise ParseError(source, str(error)) from error
    return Extraction((markdown,), title_hint=PurePath(source).stem)


register_parsers(
    {**{extension: doc_type for extension, (doc_type, _) in CODE_TYPES.items()}, ".ipynb": "ipynb"},
    {**{doc_type: extract_code for doc_type, _ in CODE_TYPES.values()}, "ipynb": extract_notebook},
)
