"""Tests for workbench.ingestion.parsers: real files of every supported type, their failures, canonicalize()."""

from __future__ import annotations

import io
import json
import pickle
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from workbench.ingestion.parsers import (
    SUPPORTED_TYPES,
    ParsedDocument,
    ParseError,
    canonicalize,
    converter,
    decode_text,
    first_heading,
    parse_bytes,
    parse_file,
)

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parsing must never reach the network: any connection attempt fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"parsing tried to open a network connection: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


# ---------------------------------------------------------------------------------------------
# Fixture files, built once per module with the real authoring libraries


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    folder = tmp_path_factory.mktemp("parsing")
    made: dict[str, Path] = {}

    def pdf(name: str, pages: list[list[str]], **canvas_options) -> None:
        path = folder / name
        pdf_canvas = canvas.Canvas(str(path), pagesize=A4, **canvas_options)
        for lines in pages:
            for row, line in enumerate(lines):
                pdf_canvas.drawString(72, 750 - 20 * row, line)
            pdf_canvas.showPage()
        pdf_canvas.save()
        made[name] = path

    pdf("two_pages.pdf", [["Alpha page one text about retrieval."], ["Bravo page two text about ranking."]])
    pdf("gap.pdf", [["First page words."], [], ["Third page words."]])
    pdf("one_page.pdf", [["Only page text."]])
    pdf("scanned.pdf", [[]])
    # Column-aligned rows: an unruled table on page one, prose on page two.
    form_path = folder / "form.pdf"
    form = canvas.Canvas(str(form_path), pagesize=A4)
    for row, cells in enumerate([("Name", "Qty", "Price"), ("Apple", "3", "1.20"), ("Pear", "10", "0.80")]):
        for x, cell in zip((72, 250, 400), cells, strict=False):
            form.drawString(x, 750 - 20 * row, cell)
    form.showPage()
    form.drawString(72, 750, "Prose on the second page, long enough to read as a sentence.")
    form.showPage()
    form.save()
    made["form.pdf"] = form_path
    pdf("locked.pdf", [["Top secret text."]], encrypt="secret")

    import docx

    document = docx.Document()
    document.add_heading("Quarterly Report", level=1)
    document.add_paragraph("Revenue grew by ten percent.")
    made["report.docx"] = folder / "report.docx"
    document.save(made["report.docx"])
    made["blank.docx"] = folder / "blank.docx"
    docx.Document().save(made["blank.docx"])

    import pptx

    deck = pptx.Presentation()
    for title, body in [("Opening Slide", "Body of slide one"), ("Closing Slide", "Body of slide two")]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    made["deck.pptx"] = folder / "deck.pptx"
    deck.save(made["deck.pptx"])

    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sales"
    sheet.append(["Region", "Units"])
    sheet.append(["North", 42])
    sheet.append(["South", 7])
    made["sales.xlsx"] = folder / "sales.xlsx"
    workbook.save(made["sales.xlsx"])
    made["empty.xlsx"] = folder / "empty.xlsx"
    openpyxl.Workbook().save(made["empty.xlsx"])
    return made


# ---------------------------------------------------------------------------------------------
# canonicalize


def test_canonicalize_normalises_line_endings_and_trailing_whitespace() -> None:
    assert canonicalize("a\r\nb\rc  \t\nd") == "a\nb\nc\nd\n"


def test_canonicalize_keeps_at_most_two_blank_lines() -> None:
    assert canonicalize("a\n\n\n\n\n\nb\n\nc\n\n\nd") == "a\n\n\nb\n\nc\n\n\nd\n"


def test_canonicalize_counts_whitespace_only_lines_as_blank() -> None:
    assert canonicalize("a\n  \n\t\n \n \nb") == "a\n\n\nb\n"


def test_canonicalize_removes_control_characters_but_keeps_tabs() -> None:
    assert canonicalize("a\x00b\x07c\x1b[0m\td\x7fe\x9bf\ufeffg") == "abc[0m\tdefg\n"


def test_canonicalize_turns_line_separators_into_newlines_instead_of_gluing_words() -> None:
    assert canonicalize("end\x0cstart\x0bnext\u2028last") == "end\nstart\nnext\nlast\n"


def test_canonicalize_strips_outer_blank_lines_and_ends_with_one_newline() -> None:
    assert canonicalize("\n\n  \n  indented\nx\n\n\n\n") == "  indented\nx\n"


def test_canonicalize_of_nothing_is_empty() -> None:
    assert canonicalize("") == ""
    assert canonicalize(" \n\t\r\n\x00") == ""


def test_canonicalize_is_idempotent() -> None:
    messy = "\ufeff\n Title \r\n\r\n\r\n\r\n\r\nbody\x00 text\t \x0c\x0cmore\n\n"
    once = canonicalize(messy)
    assert once == " Title\n\n\nbody text\n\nmore\n"
    assert canonicalize(once) == once


# ---------------------------------------------------------------------------------------------
# ParsedDocument, titles, decoding


def test_page_at_maps_offsets_to_one_based_pages() -> None:
    # pages: 1 = [0, 10), 2 = empty (starts where page 3 starts), 3 = [10, 25), 4 = [25, 30]
    document = ParsedDocument("x" * 30, "pdf", "t", page_starts=(0, 10, 10, 25))
    assert [document.page_at(i) for i in (0, 9, 10, 24, 25, 29, 30)] == [1, 1, 3, 3, 4, 4, 4]


def test_page_at_is_none_without_pages_and_rejects_offsets_outside_the_text() -> None:
    assert ParsedDocument("abc", "md", "t").page_at(1) is None
    document = ParsedDocument("abc", "pdf", "t", page_starts=(0, 2))
    with pytest.raises(ValueError, match="offset 4"):
        document.page_at(4)
    with pytest.raises(ValueError, match="offset -1"):
        document.page_at(-1)


@pytest.mark.parametrize("starts", [(1,), (0, 5, 3), (0, 9)])
def test_parsed_document_rejects_impossible_page_starts(starts: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="page_starts"):
        ParsedDocument("abcdef", "pdf", "t", page_starts=starts)


def test_supported_types_cover_every_format() -> None:
    assert dict(SUPPORTED_TYPES) == {
        ".pdf": "pdf",
        ".docx": "docx",
        ".pptx": "pptx",
        ".xlsx": "xlsx",
        ".html": "html",
        ".htm": "html",
        ".md": "md",
        ".markdown": "md",
        ".txt": "txt",
        ".csv": "csv",
        ".json": "json",
        ".png": "png",
        ".jpg": "jpg",
        ".jpeg": "jpg",
        ".webp": "webp",
        ".gif": "gif",
        ".bmp": "bmp",
        ".tiff": "tiff",
        ".tif": "tiff",
        ".py": "py",
        ".js": "js",
        ".ts": "ts",
        ".java": "java",
        ".go": "go",
        ".rs": "rs",
        ".c": "c",
        ".cpp": "cpp",
        ".h": "h",
        ".sh": "sh",
        ".sql": "sql",
        ".ipynb": "ipynb",
    }


def test_first_heading_skips_fenced_code_and_strips_inline_markup() -> None:
    markdown = "intro\n```\n# not a heading\n```\n## The **[Real](http://x) Title** ##\n# Later\n"
    assert first_heading(markdown) == "The Real Title"
    assert first_heading("#hashtag\nno headings here\n") is None


def test_decode_text_prefers_bom_then_utf8_then_windows_1252() -> None:
    assert decode_text("\ufeffhé".encode("utf-8"), "a.txt") == "hé"
    assert decode_text("hé".encode("utf-16"), "a.txt") == "hé"
    assert decode_text("检索".encode(), "a.txt") == "检索"
    assert decode_text("Le café coûte 3 €".encode("cp1252"), "a.txt") == "Le café coûte 3 €"


def test_decode_text_refuses_legacy_asian_encodings_instead_of_guessing() -> None:
    with pytest.raises(ParseError) as caught:
        decode_text("检索增强生成".encode("gbk"), "notes.txt")
    assert caught.value.source == "notes.txt"
    assert "not UTF-8" in caught.value.reason and "re-save it as UTF-8" in caught.value.reason


# ---------------------------------------------------------------------------------------------
# Every supported type


def test_pdf_pages_become_page_starts(files: dict[str, Path]) -> None:
    document = parse_file(files["two_pages.pdf"])
    alpha = document.markdown.index("Alpha page one text about retrieval.")
    bravo = document.markdown.index("Bravo page two text about ranking.")
    assert document.doc_type == "pdf"
    assert document.title == "two_pages"
    assert "\f" not in document.markdown
    assert document.page_starts == (0, bravo)
    assert document.markdown[bravo - 2 : bravo] == "\n\n"
    assert document.page_at(alpha) == 1
    assert document.page_at(bravo - 1) == 1
    assert document.page_at(bravo) == 2


def test_pdf_page_without_text_starts_where_the_next_text_starts(files: dict[str, Path]) -> None:
    document = parse_file(files["gap.pdf"])
    third = document.markdown.index("Third page words.")
    assert document.markdown == "First page words.\n\nThird page words.\n"
    assert document.page_starts == (0, third, third)
    assert document.page_at(third) == 3


def test_single_page_pdf_is_page_one(files: dict[str, Path]) -> None:
    document = parse_file(files["one_page.pdf"])
    assert (document.markdown, document.page_starts) == ("Only page text.\n", (0,))


def test_form_style_pdf_keeps_its_table_and_its_pages(files: dict[str, Path]) -> None:
    """markitdown joined such PDFs' pages without breaks; the layout extractor keeps every page."""
    document = parse_file(files["form.pdf"])
    assert "| Name | Qty | Price |\n| --- | --- | --- |\n| Apple | 3 | 1.20 |" in document.markdown
    second = document.markdown.index("Prose on the second page")
    assert document.page_starts == (0, second)
    assert document.page_at(0) == 1 and document.page_at(second) == 2


def test_docx_heading_becomes_markdown_heading_and_title(files: dict[str, Path]) -> None:
    document = parse_file(files["report.docx"])
    assert document.markdown == "# Quarterly Report\n\nRevenue grew by ten percent.\n"
    assert (document.doc_type, document.title, document.page_starts) == ("docx", "Quarterly Report", ())


def test_pptx_slides_become_pages_without_marker_comments(files: dict[str, Path]) -> None:
    document = parse_file(files["deck.pptx"])
    second = document.markdown.index("# Closing Slide")
    assert "Slide number" not in document.markdown
    assert "# Opening Slide" in document.markdown and "Body of slide two" in document.markdown
    assert document.page_starts == (0, second)
    assert document.page_at(document.markdown.index("Body of slide one")) == 1
    assert document.page_at(document.markdown.index("Body of slide two")) == 2
    assert document.title == "Opening Slide"


def test_xlsx_becomes_markdown_table_titled_by_file_not_sheet(files: dict[str, Path]) -> None:
    document = parse_file(files["sales.xlsx"])
    assert "| Region | Units |" in document.markdown.split("\n")
    assert "| North | 42 |" in document.markdown.split("\n")
    assert (document.doc_type, document.title) == ("xlsx", "sales")


def test_html_keeps_headings_and_drops_scripts() -> None:
    html = (
        b"<html><head><title>Tab title</title><style>p{color:red}</style>"
        b"<script>var leaked = 'from head';</script></head><body><h1>Main Heading</h1>"
        b"<p>Visible paragraph.</p><script>var secret = 42;</script></body></html>"
    )
    document = parse_bytes(html, "page.htm")
    assert document.markdown == "# Main Heading\n\nVisible paragraph.\n"
    assert (document.doc_type, document.title) == ("html", "Main Heading")


def test_html_without_heading_is_titled_by_its_title_element() -> None:
    document = parse_bytes(b"<html><head><title>Tab title</title></head><body><p>Words.</p></body></html>", "p.html")
    assert document.title == "Tab title"


def test_markdown_is_used_as_written_apart_from_canonicalisation() -> None:
    text = "# Guide\r\n\r\nSome *emphasis* and `code`.   \r\n\r\n\r\n\r\n## Part two\r\n- item\r\n"
    document = parse_bytes(text.encode("utf-8"), "guide.markdown")
    assert document.markdown == "# Guide\n\nSome *emphasis* and `code`.\n\n\n## Part two\n- item\n"
    assert (document.doc_type, document.title) == ("md", "Guide")


def test_utf8_text_with_chinese_is_kept_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "tmp_upload_123"
    path.write_bytes("检索增强生成（RAG）结合了检索与生成。\n第二行。\n".encode())
    document = parse_file(path, source_name="笔记.txt")
    assert document.markdown == "检索增强生成（RAG）结合了检索与生成。\n第二行。\n"
    assert (document.doc_type, document.title, document.page_starts) == ("txt", "笔记", ())


def test_windows_1252_text_is_decoded() -> None:
    document = parse_bytes("Crème brûlée costs 5 €.".encode("cp1252"), "menu.txt")
    assert document.markdown == "Crème brûlée costs 5 €.\n"


def test_csv_becomes_markdown_table() -> None:
    document = parse_bytes("name,city\n李雷,北京\nAnna,Köln\n".encode(), "people.csv")
    assert document.markdown == "| name | city |\n| --- | --- |\n| 李雷 | 北京 |\n| Anna | Köln |\n"
    assert (document.doc_type, document.title) == ("csv", "people")


def test_json_is_pretty_printed_in_a_fenced_block() -> None:
    document = parse_bytes(b'{"name":"workbench","tags":["rag"],"city":"K\xc3\xb6ln"}', "meta.json")
    assert document.markdown == (
        '```json\n{\n  "name": "workbench",\n  "tags": [\n    "rag"\n  ],\n  "city": "Köln"\n}\n```\n'
    )
    assert (document.doc_type, document.title) == ("json", "meta")


def test_json_fence_outgrows_backticks_inside_the_data() -> None:
    document = parse_bytes(json.dumps({"snippet": "```py```"}).encode(), "s.json")
    assert document.markdown.startswith("````json\n") and document.markdown.endswith("\n````\n")


def test_extension_is_case_insensitive() -> None:
    assert parse_bytes(b"hello", "README.TXT").doc_type == "txt"


def test_markitdown_is_built_once_and_import_stays_light() -> None:
    assert converter.markitdown() is converter.markitdown()
    probe = "import sys, workbench.ingestion.parsers; print('markitdown' in sys.modules, 'pandas' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------------------------------------
# Failures: each names the file and says what is wrong


def reason_for(data: bytes, filename: str) -> str:
    with pytest.raises(ParseError) as caught:
        parse_bytes(data, filename)
    assert caught.value.source == filename
    assert str(caught.value) == f"{filename}: {caught.value.reason}"
    return caught.value.reason


@pytest.mark.parametrize("filename", ["a.pdf", "b.docx", "c.pptx", "d.xlsx", "e.txt", "f.md", "g.json", "h.csv"])
def test_empty_file(filename: str) -> None:
    assert "empty file (0 bytes)" in reason_for(b"", filename)


def test_unsupported_extension_lists_the_supported_ones() -> None:
    reason = reason_for(b"MZ\x90\x00", "setup.exe")
    assert "unsupported file type '.exe'" in reason
    assert ".pdf" in reason and ".docx" in reason and ".json" in reason


def test_missing_extension() -> None:
    assert "no file extension" in reason_for(b"hello", "README")


GARBAGE = bytes(range(7, 256)) * 3


def test_garbage_named_pdf() -> None:
    assert "not a PDF file (no PDF header" in reason_for(GARBAGE, "report.pdf")


@pytest.mark.parametrize("kind", ["docx", "xlsx", "pptx"])
def test_garbage_named_office_file(kind: str) -> None:
    assert f"not a valid {kind.upper()} (file is corrupt or truncated)" in reason_for(GARBAGE, f"file.{kind}")


def test_truncated_pdf(files: dict[str, Path]) -> None:
    data = files["two_pages.pdf"].read_bytes()
    assert "not a valid PDF (file is corrupt or truncated)" in reason_for(data[: len(data) // 2], "cut.pdf")


def test_truncated_docx_zip(files: dict[str, Path]) -> None:
    data = files["report.docx"].read_bytes()
    assert "not a valid DOCX (file is corrupt or truncated)" in reason_for(data[: len(data) - 40], "cut.docx")


def test_docx_with_broken_content_is_reported_as_corrupt(files: dict[str, Path]) -> None:
    """A well-formed ZIP whose document part is not XML fails inside markitdown; no traceback leaks."""
    rebuilt = io.BytesIO()
    with zipfile.ZipFile(files["report.docx"]) as original, zipfile.ZipFile(rebuilt, "w") as copy:
        for item in original.infolist():
            content = b"<w:document <<< not xml" if item.filename == "word/document.xml" else original.read(item)
            copy.writestr(item, content)
    with pytest.raises(ParseError) as caught:
        parse_bytes(rebuilt.getvalue(), "broken.docx")
    assert "not a valid DOCX (file is corrupt or truncated)" in caught.value.reason
    assert "Traceback" not in str(caught.value)
    assert caught.value.__cause__ is not None  # the library's exception stays available for logs


def test_workbook_renamed_to_docx_says_what_it_really_is(files: dict[str, Path]) -> None:
    reason = reason_for(files["sales.xlsx"].read_bytes(), "sales.docx")
    assert "an Excel workbook, not a Word document" in reason and "rename it to .xlsx" in reason


def test_other_zip_named_pptx() -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as package:
        package.writestr("notes.txt", "hello")
    assert "a ZIP archive but not a PowerPoint presentation" in reason_for(archive.getvalue(), "talk.pptx")


def test_legacy_or_encrypted_office_file() -> None:
    compound_file = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    assert "password-protected, or a legacy Office file" in reason_for(compound_file, "budget.xlsx")


def test_pdf_without_text(files: dict[str, Path]) -> None:
    reason = reason_for(files["scanned.pdf"].read_bytes(), "scan.pdf")
    assert "no extractable text" in reason and "scanned image" in reason and "OCR" in reason


def test_password_protected_pdf(files: dict[str, Path]) -> None:
    assert "password-protected PDF" in reason_for(files["locked.pdf"].read_bytes(), "locked.pdf")


def test_documents_without_text(files: dict[str, Path]) -> None:
    assert "no text (the document is empty)" in reason_for(files["blank.docx"].read_bytes(), "blank.docx")
    assert "no cell values" in reason_for(files["empty.xlsx"].read_bytes(), "empty.xlsx")
    assert "no text (the document is empty)" in reason_for(b" \r\n\t\n", "spaces.txt")


def test_binary_data_named_txt() -> None:
    assert "binary data, not text" in reason_for(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "photo.txt")


def test_invalid_json_points_at_the_error() -> None:
    reason = reason_for(b'{"a": 1,\n "b": }', "data.json")
    assert "not valid JSON (line 2, column 7" in reason


def test_parse_error_survives_pickling() -> None:
    error = pickle.loads(pickle.dumps(ParseError("a.pdf", "not a valid PDF")))
    assert (error.source, error.reason, str(error)) == ("a.pdf", "not a valid PDF", "a.pdf: not a valid PDF")
