"""Structure the held-out set of issue 49 showed missing (``bench/pdf_heldout``, Chromium's prints):
a table of contents' dot leaders, italic headings at the body's size, cells spanning rows and
columns in a ruled table. Each expectation is a line of the page's reference Markdown."""

from __future__ import annotations

from pathlib import Path

from workbench.ingestion.parsers.pdf.layout import read_pages
from workbench.ingestion.parsers.pdf.paragraphs import ends_in_leader, without_leader

HELDOUT = Path(__file__).resolve().parents[5] / "bench" / "pdf_heldout"


def _page(name: str) -> str:
    return read_pages((HELDOUT / f"{name}.pdf").read_bytes()).markdown[0]


def test_leader_rule() -> None:
    assert ends_in_leader("2.1 Requirements . . . . . . . . 3")
    assert ends_in_leader("Index ........ xii")
    assert without_leader("2.1 Requirements . . . . . . . . 3") == "2.1 Requirements 3"
    assert not ends_in_leader("and so on... 3")  # an ellipsis is no leader
    assert not ends_in_leader("Requirements . . . . . . . . later")


def test_contents_entries_stand_alone_without_their_leaders() -> None:
    paragraphs = _page("en-contents").split("\n\n")
    assert paragraphs[:4] == [
        "# Contents", "1 Introduction 1", "1.1 Purpose of this manual 1", "1.2 Who should read it 2"
    ]  # fmt: skip
    assert "Index 17" in paragraphs
    assert not any(". . . ." in paragraph for paragraph in paragraphs)


def test_italic_headings_at_the_body_size() -> None:
    markdown = _page("en-italic-headings")
    for heading in ("Method", "Observations", "Conclusions", "Further work"):
        assert f"## {heading}\n" in markdown
    assert "## The northern headland" in markdown  # bold at the body size, as before


def test_spanned_cells_keep_their_neighbours_in_place() -> None:
    markdown = _page("en-spans-table")
    assert "| Monday | 09:00 | Linear Algebra | A101 |" in markdown
    assert "|  | 11:00 | Probability | A104 |" in markdown  # under the cell spanning two rows
    assert "| Wednesday | No lectures: reading day |  |  |" in markdown  # a cell across three columns
    assert "|  | 15:00 | Seminar | C002 |" in markdown
