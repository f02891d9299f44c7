"""The PDF-extraction field's three measures, from their definitions: NID, TEDS and MHS.

Each compares an extraction's Markdown with a reference Markdown of the same document:

* **NID** (normalised indel distance; reading order and text): ``1 - indel / (len(a) + len(b))``
  over the two texts as ``normalised`` leaves them, where ``indel`` is the fewest single-character
  insertions and deletions turning one into the other (``len(a) + len(b) - 2 * LCS``). Both empty: 1.
* **TEDS** (tree-edit-distance similarity of tables): every table as an HTML tree
  ``table > tr > td`` (``th`` read as ``td``; ``thead``/``tbody`` dropped, since Markdown has
  neither), the Zhang–Shasha tree edit distance with insert and delete cost 1 and rename cost 1
  between nodes of different tags or spans, and for two ``td`` of the same spans the normalised
  Levenshtein distance of their texts; ``TEDS = 1 - TED / max(nodes)``. Tables are paired one to
  one, best score first (each reference table with the predicted one it scores highest against,
  greedily); a document's TEDS is the sum of its pairs' scores over the larger of the two table
  counts, so a missed table and a table invented from prose both count as 0. Only documents whose
  reference has a table have a TEDS.
* **MHS** (heading-structure similarity): the headings as a tree, each under the nearest heading
  before it of a higher rank (fewer ``#``), under one root; the same tree edit distance with rename
  cost the normalised Levenshtein distance of the headings' texts (the level is in the tree's shape,
  so a document read one level deeper throughout loses nothing); ``MHS = 1 - TED / max(headings)``.
  Only documents whose reference has a heading have an MHS.

A document's **Overall** is the mean of the measures it has; a set's, the mean over its documents.

``normalised``, the exact rule: HTML tags become a space; in each line, a table's delimiter row
(``| --- |``) is dropped, a heading's ``#`` marks, a list item's marker (``-``, ``*``, ``+``,
``1.``, ``1)``) and a quote's ``>`` are dropped, pipes become spaces; code fences are dropped; image
and link syntax keep their text (``![alt](x)`` -> ``alt``, ``[t](u)`` -> ``t``); emphasis and code
marks (``**``, ``__``, ``*``, ``_`` around words, backticks) are dropped; HTML entities are decoded;
then every run of whitespace becomes one space, and the ends are stripped. Case, punctuation and
the order of characters are kept: they are what reading order and text are about.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

# --- text ----------------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^\s*>\s?")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def normalised(markdown: str) -> str:
    """The Markdown's text without its markup (the rule is in the module's docstring)."""
    lines = []
    for line in _TAG.sub(" ", markdown).split("\n"):
        if _FENCE.match(line) or _DELIMITER_ROW.match(line):
            continue
        if heading := _HEADING.match(line):
            line = heading.group(2)
        line = _QUOTE.sub("", line)
        line = _ITEM.sub("", line)
        line = _IMAGE.sub(r"\1", line)
        line = _LINK.sub(r"\1", line)
        line = line.replace("\\|", "\x00").replace("|", " ").replace("\x00", "|")
        line = _EMPHASIS.sub(r"\2", line).replace("`", "")
        lines.append(line)
    return _SPACE.sub(" ", html.unescape(" ".join(lines))).strip()


def lcs_length(a: str, b: str) -> int:
    """The length of the longest common subsequence, bit-parallel (Hyyrö 2004): one big-integer
    step per character of ``b``, so pages of text take milliseconds, not a quadratic table."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for position, character in enumerate(a):
        masks[character] = masks.get(character, 0) | (1 << position)
    full = (1 << len(a)) - 1
    row = full
    for character in b:
        matched = row & masks.get(character, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(a) - row.bit_count()


def indel_distance(a: str, b: str) -> int:
    return len(a) + len(b) - 2 * lcs_length(a, b)


def nid(predicted: str, reference: str) -> float:
    """1 - indel distance / total length, over the normalised texts of two Markdowns."""
    a, b = normalised(predicted), normalised(reference)
    if not a and not b:
        return 1.0
    return 1.0 - indel_distance(a, b) / (len(a) + len(b))


def levenshtein(a: str, b: str) -> int:
    """Insertions, deletions and substitutions, each cost 1 (Wagner–Fischer, two rows)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def normalised_levenshtein(a: str, b: str) -> float:
    """Levenshtein distance over the longer length: 0 for equal texts, 1 for nothing in common."""
    longest = max(len(a), len(b))
    return levenshtein(a, b) / longest if longest else 0.0


# --- trees ---------------------------------------------------------------------------------------


@dataclass
class Node:
    """A tree node: ``tag`` with its spans (for table cells), ``text`` and ``children``."""

    tag: str
    text: str = ""
    colspan: int = 1
    rowspan: int = 1
    children: list[Node] = field(default_factory=list)

    def size(self) -> int:
        return 1 + sum(child.size() for child in self.children)


def _postorder(root: Node) -> tuple[list[Node], list[int]]:
    """The nodes in postorder, and for each the postorder index of its leftmost leaf."""
    nodes: list[Node] = []
    leftmost: list[int] = []

    def walk(node: Node) -> int:
        first = -1
        for child in node.children:
            leaf = walk(child)
            if first < 0:
                first = leaf
        nodes.append(node)
        leftmost.append(first if first >= 0 else len(nodes) - 1)
        return leftmost[-1]

    walk(root)
    return nodes, leftmost


def tree_edit_distance(a: Node, b: Node, rename: Callable[[Node, Node], float]) -> float:
    """Zhang–Shasha (1989): the least total cost of deleting and inserting nodes (1 each) and
    renaming one into another (``rename``) that turns tree ``a`` into tree ``b``."""
    nodes_a, left_a = _postorder(a)
    nodes_b, left_b = _postorder(b)

    def keyroots(left: list[int]) -> list[int]:
        # the nodes with no left sibling's leftmost leaf in common with a later node: the highest
        # node of each leftmost leaf
        last: dict[int, int] = {}
        for index, leaf in enumerate(left):
            last[leaf] = index
        return sorted(last.values())

    distance = [[0.0] * len(nodes_b) for _ in nodes_a]
    for i in keyroots(left_a):
        for j in keyroots(left_b):
            li, lj = left_a[i], left_b[j]
            rows, columns = i - li + 2, j - lj + 2
            forest = [[0.0] * columns for _ in range(rows)]
            for x in range(1, rows):
                forest[x][0] = forest[x - 1][0] + 1
            for y in range(1, columns):
                forest[0][y] = forest[0][y - 1] + 1
            for x in range(1, rows):
                for y in range(1, columns):
                    node_a, node_b = li + x - 1, lj + y - 1
                    if left_a[node_a] == li and left_b[node_b] == lj:
                        forest[x][y] = min(
                            forest[x - 1][y] + 1,
                            forest[x][y - 1] + 1,
                            forest[x - 1][y - 1] + rename(nodes_a[node_a], nodes_b[node_b]),
                        )
                        distance[node_a][node_b] = forest[x][y]
                    else:
                        px, py = left_a[node_a] - li, left_b[node_b] - lj
                        forest[x][y] = min(
                            forest[x - 1][y] + 1,
                            forest[x][y - 1] + 1,
                            forest[px][py] + distance[node_a][node_b],
                        )
    return distance[-1][-1]


# --- tables --------------------------------------------------------------------------------------


def _cell_rename(a: Node, b: Node) -> float:
    if a.tag != b.tag or (a.colspan, a.rowspan) != (b.colspan, b.rowspan):
        return 1.0
    if a.tag == "td":
        return normalised_levenshtein(a.text, b.text)
    return 0.0


def teds_tables(predicted: Node, reference: Node) -> float:
    """1 - TED / max(nodes) of two ``table`` trees."""
    largest = max(predicted.size(), reference.size())
    return 1.0 - tree_edit_distance(predicted, reference, _cell_rename) / largest


class _TableReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Node] = []
        self._open: list[Node] = []  # the table, row and cell being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        spans = {name: int(value) for name, value in attrs if name in ("colspan", "rowspan") and value}
        if tag == "table":
            self._open = [Node("table")]
        elif tag == "tr" and self._open:
            self._open = self._open[:1] + [Node("tr")]
            self._open[0].children.append(self._open[1])
        elif tag in ("td", "th") and len(self._open) >= 2:
            cell = Node("td", colspan=spans.get("colspan", 1), rowspan=spans.get("rowspan", 1))
            self._open = self._open[:2] + [cell]
            self._open[1].children.append(cell)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._open:
            self.tables.append(self._open[0])
            self._open = []
        elif tag in ("td", "th") and len(self._open) == 3:
            self._open[2].text = _SPACE.sub(" ", self._open[2].text).strip()
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if len(self._open) == 3:
            self._open[2].text += data


def _pipe_cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    cells = re.split(r"(?<!\\)\|", inner)
    return [normalised(cell.replace("\\|", "|")) for cell in cells]


def tables_of(markdown: str) -> list[Node]:
    """Every table of a Markdown text in order: HTML ``<table>`` elements and pipe tables (a row of
    pipes over a delimiter row, and the pipe rows after it)."""
    found: list[tuple[int, Node]] = []
    for match in re.finditer(r"<table\b.*?</table>", markdown, re.S | re.I):
        reader = _TableReader()
        reader.feed(match.group(0))
        found.extend((match.start(), table) for table in reader.tables)
    lines = markdown.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    index = 0
    while index < len(lines) - 1:
        line = lines[index]
        if "|" in line and _DELIMITER_ROW.match(lines[index + 1]) and "-" in lines[index + 1]:
            rows = [line]
            end = index + 2
            while end < len(lines) and lines[end].strip().startswith("|"):
                rows.append(lines[end])
                end += 1
            table = Node("table", children=[Node("tr", children=[Node("td", c) for c in _pipe_cells(r)]) for r in rows])
            found.append((offsets[index], table))
            index = end
        else:
            index += 1
    return [table for _offset, table in sorted(found, key=lambda pair: pair[0])]


def teds(predicted: str, reference: str) -> float | None:
    """The document's TEDS (tables paired best-first; ``None`` when the reference has no table)."""
    wanted, found = tables_of(reference), tables_of(predicted)
    if not wanted:
        return None
    if not found:
        return 0.0
    scores = sorted(
        ((teds_tables(p, r), i, j) for i, r in enumerate(wanted) for j, p in enumerate(found)), reverse=True
    )
    used_reference: set[int] = set()
    used_predicted: set[int] = set()
    total = 0.0
    for score, i, j in scores:
        if i not in used_reference and j not in used_predicted:
            used_reference.add(i)
            used_predicted.add(j)
            total += score
    return total / max(len(wanted), len(found))


# --- headings ------------------------------------------------------------------------------------


def headings_of(markdown: str) -> list[tuple[int, str]]:
    """(level, normalised text) of every ``#`` heading outside code fences, in order."""
    found = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := _HEADING.match(line)):
            found.append((len(heading.group(1)), normalised(heading.group(2))))
    return found


def heading_tree(headings: Sequence[tuple[int, str]]) -> Node:
    """Each heading under the nearest heading before it of a higher rank, under one root."""
    root = Node("root")
    open_path: list[tuple[int, Node]] = [(0, root)]
    for level, text in headings:
        while open_path[-1][0] >= level:
            open_path.pop()
        node = Node("h", text)
        open_path[-1][1].children.append(node)
        open_path.append((level, node))
    return root


def _heading_rename(a: Node, b: Node) -> float:
    if a.tag != b.tag:
        return 1.0
    return normalised_levenshtein(a.text, b.text) if a.tag == "h" else 0.0


def mhs(predicted: str, reference: str) -> float | None:
    """1 - TED / max(headings) over the heading trees (``None`` when the reference has none)."""
    wanted, found = headings_of(reference), headings_of(predicted)
    if not wanted:
        return None
    distance = tree_edit_distance(heading_tree(found), heading_tree(wanted), _heading_rename)
    return max(0.0, 1.0 - distance / max(len(wanted), len(found)))


# --- a document ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentScores:
    """One document's measures; ``None`` where its reference has no table (or no heading)."""

    nid: float
    teds: float | None
    mhs: float | None

    @property
    def overall(self) -> float:
        present = [score for score in (self.nid, self.teds, self.mhs) if score is not None]
        return sum(present) / len(present)


def score(predicted: str, reference: str) -> DocumentScores:
    return DocumentScores(nid(predicted, reference), teds(predicted, reference), mhs(predicted, reference))
