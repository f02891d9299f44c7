"""The ``code`` strategy: source code cut into its functions, classes and methods.

Code arrives as fenced blocks in the document's Markdown (a ``.py`` file is one ```` ```python ````
block, a notebook alternates prose and code cells). Each block is cut into *units*:

* **Python** by ``ast``: every function, class and method is a unit whose heading path ends in
  its qualified name (``Tokenizer.split``, ``outer.<locals>.inner`` is not split further: nested
  functions stay inside their parent). A class's unit is its header, docstring and class-level
  statements up to its first method; module-level statements between definitions form units of
  their own with no name. Comments directly above a definition, and its decorators, belong to it.
* **Other languages** by top-level blocks: a block starts at an unindented line after a blank
  line or after a line that closes one (``}``, ``end``, ``;``); it is named when its first line
  declares something recognisable (``function f``, ``class C``, ``fn f``, ``func f``,
  ``CREATE TABLE t``, a C-style ``type name(``).
* Code that does not parse, and prose outside code blocks, is cut by the recursive strategy.

A unit longer than ``size`` is cut further by the recursive splitter (lines, then words), every
piece keeping the unit's name. Offsets keep ``markdown[start:end] == text``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from itertools import pairwise

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.recursive import RecursiveSplitter
from workbench.chunking.sentences import trim_whitespace
from workbench.chunking.tokens import LengthConfig, TokenSpans, measure_for

PYTHON_NAMES = {"python", "py", "python3", "ipython", "ipython3"}
_FENCE_INFO = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*([\w+#.-]*)")
_DECLARATION = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:public\s+|private\s+|protected\s+|static\s+|final\s+|abstract\s+)*"
    r"(?:function\*?\s+(?P<function>[\w$]+)"
    r"|(?:class|interface|struct|enum|trait|impl|type|module|namespace)\s+(?P<type>[\w$:<>]+)"
    r"|fn\s+(?P<fn>\w+)"
    r"|func\s+(?:\([^)]*\)\s*)?(?P<func>\w+)"
    r"|(?:const|let|var)\s+(?P<binding>[\w$]+)\s*=\s*(?:async\s*)?(?:function|\([^)]*\)\s*=>|[\w$]+\s*=>)"
    r"|(?:create|alter)\s+(?:or\s+replace\s+)?(?:table|view|index|function|procedure|trigger)\s+(?:if\s+not\s+exists\s+)?(?P<sql>[\w.\"]+)"
    r"|(?P<shell>[\w-]+)\s*\(\)\s*\{?"
    r"|[\w\s\*&:<>,]*?\b(?P<c>[A-Za-z_]\w*)\s*\([^;]*\)\s*(?:const\s*)?\{?\s*$)",
    re.IGNORECASE,
)
_CLOSER = re.compile(r"^\s*(?:[}\])]+[;,]?|end\b.*)\s*$")  # a line that only closes a block
_STATEMENT_END = re.compile(r"^.*;\s*$")


@dataclass(frozen=True)
class CodeConfig(LengthConfig):
    """Definitions longer than ``size`` units are split at line breaks, with ``overlap`` between the parts."""


@dataclass(frozen=True)
class Unit:
    """A span of the Markdown and the qualified name it defines ("" for unnamed code)."""

    start: int
    end: int
    name: str = ""


def split(markdown: str, config: CodeConfig, *, tokens: TokenSpans | None = None) -> list[Chunk]:
    measure = measure_for(markdown, config.unit, tokens)
    headings = HeadingIndex(markdown)
    splitter = RecursiveSplitter(markdown, config.size, config.overlap, measure, headings)
    chunks: list[Chunk] = []

    def emit(start: int, end: int, name: str) -> None:
        start, end = trim_whitespace(markdown, start, end)
        if start >= end:
            return
        pieces = [(start, end)] if measure.length(start, end) <= config.size else splitter.split_span(start, end)
        for s, e in pieces:
            path = headings.path_at(s) + ((name,) if name else ())
            chunks.append(
                Chunk(text=markdown[s:e], start=s, end=e, heading_path=path, metadata={"code": name} if name else {})
            )

    cursor = 0
    for block_start, block_end in headings.code_blocks:
        if cursor < block_start:
            emit_prose(splitter, markdown, headings, cursor, block_start, chunks)
        for unit in code_units(markdown, block_start, block_end):
            emit(unit.start, unit.end, unit.name)
        cursor = block_end
    if cursor < len(markdown):
        emit_prose(splitter, markdown, headings, cursor, len(markdown), chunks)
    return chunks


def emit_prose(
    splitter: RecursiveSplitter, markdown: str, headings: HeadingIndex, start: int, end: int, chunks: list[Chunk]
) -> None:
    start, end = trim_whitespace(markdown, start, end)
    if start < end:
        chunks.extend(
            Chunk(text=markdown[s:e], start=s, end=e, heading_path=headings.path_at(s))
            for s, e in splitter.split_span(start, end)
        )


def code_units(markdown: str, block_start: int, block_end: int) -> list[Unit]:
    """The units of one fenced block: its content (between the fence lines) cut by language."""
    opening_end = markdown.find("\n", block_start, block_end)
    if opening_end < 0:
        return []
    content_start = opening_end + 1
    closing_start = markdown.rfind("\n", content_start, block_end)
    content_end = (
        closing_start + 1 if closing_start >= 0 and _is_fence(markdown[closing_start + 1 : block_end]) else block_end
    )
    info = _FENCE_INFO.match(markdown[block_start:opening_end])
    language = (info.group(1) if info else "").lower()
    code = markdown[content_start:content_end]
    line_starts = _line_starts(code)
    if language in PYTHON_NAMES:
        units = python_units(code, line_starts)
        if units is None:  # does not parse (a snippet, Python 2): still cut at top-level blocks
            units = block_units(code, line_starts)
    else:
        units = block_units(code, line_starts)
    return [Unit(content_start + u.start, content_start + u.end, u.name) for u in units]


def _is_fence(line: str) -> bool:
    return bool(re.match(r"^ {0,3}(?:`{3,}|~{3,})\s*$", line))


def _line_starts(code: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", code))
    return starts


# -- Python -------------------------------------------------------------------------------------

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def python_units(code: str, line_starts: list[int]) -> list[Unit] | None:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = code.split("\n")
    units: list[Unit] = []

    def offset(line_number: int) -> int:  # 1-based line -> offset of its first character
        return line_starts[line_number - 1] if line_number - 1 < len(line_starts) else len(code)

    def line_end(line_number: int) -> int:
        return offset(line_number + 1) if line_number < len(line_starts) else len(code)

    def first_line(node: ast.stmt) -> int:
        line = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        while line > 1 and lines[line - 2].strip().startswith("#"):  # comments right above belong to it
            line -= 1
        return line

    def walk(body: list[ast.stmt], prefix: str, region_start: int, region_end: int, owner: str) -> None:
        """Units for ``body`` inside lines [region_start, region_end]; loose statements go to ``owner``."""
        loose_from = region_start
        for node in body:
            if not isinstance(node, _DEFINITIONS):
                continue
            start_line = max(first_line(node), loose_from)
            if start_line > loose_from:
                units.append(Unit(offset(loose_from), offset(start_line), owner))
            name = f"{prefix}{node.name}"
            end_line = node.end_lineno or node.lineno
            if isinstance(node, ast.ClassDef) and any(isinstance(child, _DEFINITIONS) for child in node.body):
                walk(node.body, f"{name}.", start_line, end_line, name)
            else:
                units.append(Unit(offset(start_line), line_end(end_line), name))
            loose_from = end_line + 1
        if loose_from <= region_end:
            units.append(Unit(offset(loose_from), line_end(region_end), owner))

    walk(tree.body, "", 1, len(line_starts), "")
    return [unit for unit in units if code[unit.start : unit.end].strip()]


# -- other languages ----------------------------------------------------------------------------


def block_units(code: str, line_starts: list[int]) -> list[Unit]:
    """Top-level blocks: cut before an unindented line that follows a blank or closing line."""
    lines = code.split("\n")
    cuts = [0]
    for number in range(1, len(lines)):
        line, previous = lines[number], lines[number - 1]
        if not line.strip() or line[0] in " \t" or _CLOSER.match(line):
            continue
        if previous.strip() and not _CLOSER.match(previous) and not _STATEMENT_END.match(previous):
            continue
        # comment lines directly above stay with the block they describe
        first = number
        while first > 0 and _is_comment(lines[first - 1]):
            first -= 1
        if first > cuts[-1]:
            cuts.append(first)
    cuts.append(len(lines))
    units = []
    for first, last in pairwise(cuts):
        start = line_starts[first]
        end = line_starts[last] if last < len(line_starts) else len(code)
        units.append(Unit(start, end, _block_name(lines[first:last])))
    return [unit for unit in units if code[unit.start : unit.end].strip()]


def _is_comment(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(("//", "/*", "*", "--", "#")) and not stripped.startswith("#include")


def _block_name(lines: list[str]) -> str:
    for line in lines:
        if not line.strip() or _is_comment(line) or line[0] in " \t":
            continue
        found = _DECLARATION.match(line.strip())
        if not found:
            return ""
        return next((value.strip('"') for value in found.groupdict().values() if value), "")
    return ""
