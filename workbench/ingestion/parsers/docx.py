"""DOCX to Markdown: the package's XML made faithful first, then mammoth (HTML) and markitdown's
HTML converter, as markitdown's own DOCX converter does, but with three things it gets wrong fixed.

* **Code keeps its lines.** A paragraph in a code style ("Code", "HTML Preformatted", "Source
  Code", ...) or whose text runs are all in a monospace font is code; its line breaks (``<w:br/>``,
  and ``<w:cr/>``, which mammoth drops, gluing the lines together) become newlines, and a run of
  such paragraphs becomes one fenced block.
* **Pictures are text, never base64.** Each picture is read like one on a PDF page
  (``picture_text``: the quick text check, then OCR within the per-image budget) and stands as
  a quoted "Text in the image (OCR):" block, or as ``[image: image1.png]`` (with the author's
  description, when there is one); every picture gets a note.
* **Links come from relationships only.** A ``<w:hyperlink r:id>`` keeps its target from
  ``document.xml.rels`` when it is a web or mail address; a target on the author's disk
  (``file:``, a bare path) is dropped with its link, the text kept. HYPERLINK field codes (whose
  instruction text carries switches and, often, local paths: ``"…" \\t "/Users/…"``) never make a
  link: their displayed text stays as plain text, and ``<w:fldSimple>`` fields, which mammoth
  drops whole, keep theirs.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from workbench.config import IngestConfig
from workbench.ingestion.parsers.image_notes import ImageNote

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
DOCUMENT_PART = "word/document.xml"
#: the paragraph style the code paragraphs are given, and mammoth's rule for it (one <pre> a run)
CODE_STYLE_ID = "WorkbenchCode"
STYLE_MAP = f"p.{CODE_STYLE_ID} => pre:separator('\\n')"
#: paragraph style names that say "code" (lower case, matched as words)
_CODE_STYLE = re.compile(r"\b(code|source|preformatted|listing|console|terminal|verbatim)\b|代码|源码|程序")
MONOSPACE_FONTS = frozenset(
    {
        "courier",
        "courier new",
        "consolas",
        "menlo",
        "monaco",
        "lucida console",
        "source code pro",
        "dejavu sans mono",
        "liberation mono",
        "fira code",
        "fira mono",
        "jetbrains mono",
        "cascadia code",
        "cascadia mono",
        "sf mono",
        "roboto mono",
        "ubuntu mono",
        "noto sans mono",
        "inconsolata",
        "andale mono",
    }
)
WEB_SCHEMES = ("http://", "https://", "mailto:")
_IMAGE_TOKEN = "workbench-image-"
_IMAGE_REF = re.compile(r"!\[([^\]]*)\]\(" + _IMAGE_TOKEN + r"(\d+)\)")


@dataclass
class DocxPictures:
    """The pictures mammoth met, in order: their name, the author's description, and their text."""

    names: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    notes: list[ImageNote] = field(default_factory=list)


def faithful_package(data: bytes) -> bytes:
    """The DOCX package with its document part rewritten (code, links, fields; see the module)."""
    from lxml import etree

    with zipfile.ZipFile(io.BytesIO(data)) as package:
        parts = {info.filename: package.read(info) for info in package.infolist()}
    root = etree.fromstring(parts[DOCUMENT_PART])
    styles = _style_names(parts.get("word/styles.xml"))
    links = _web_links(parts.get("word/_rels/document.xml.rels"))
    _drop_hyperlink_fields(root)
    _unwrap_simple_fields(root)
    _keep_web_links(root, links)
    _mark_code(root, styles)
    for carriage in root.iter(f"{W}cr"):  # mammoth drops <w:cr/>; it is a line break
        carriage.tag = f"{W}br"
    parts[DOCUMENT_PART] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, content in parts.items():
            package.writestr(name, content)
    return out.getvalue()


def _style_names(styles_xml: bytes | None) -> dict[str, str]:
    """paragraph and character style id -> its name, lower case."""
    from lxml import etree

    if not styles_xml:
        return {}
    names = {}
    for style in etree.fromstring(styles_xml).iter(f"{W}style"):
        name = style.find(f"{W}name")
        if name is not None:
            names[style.get(f"{W}styleId", "")] = name.get(f"{W}val", "").lower()
    return names


def _web_links(rels_xml: bytes | None) -> dict[str, str]:
    """relationship id -> target, for the hyperlinks that point at the web or a mail address."""
    from lxml import etree

    if not rels_xml:
        return {}
    return {
        rel.get("Id", ""): rel.get("Target", "")
        for rel in etree.fromstring(rels_xml).iter(f"{RELATIONSHIPS}Relationship")
        if rel.get("Type", "").endswith("/hyperlink") and rel.get("Target", "").lower().startswith(WEB_SCHEMES)
    }


def _drop_hyperlink_fields(root: Any) -> None:
    """Empty the instruction text of every HYPERLINK complex field: its result stays plain text."""
    stack: list[list[Any]] = []
    for element in root.iter(f"{W}fldChar", f"{W}instrText"):
        if element.tag == f"{W}instrText":
            if stack:
                stack[-1].append(element)
            continue
        kind = element.get(f"{W}fldCharType")
        if kind == "begin":
            stack.append([])
        elif stack and kind in ("separate", "end"):
            instructions = stack[-1]
            if re.match(r"\s*HYPERLINK\b", "".join(e.text or "" for e in instructions), re.IGNORECASE):
                for instruction in instructions:
                    instruction.text = ""
            stack[-1] = []  # decided: what follows up to the end is the field's result
            if kind == "end":
                stack.pop()


def _unwrap_simple_fields(root: Any) -> None:
    """``<w:fldSimple>`` replaced by its result runs (mammoth would drop them with the field)."""
    for simple in list(root.iter(f"{W}fldSimple")):
        parent = simple.getparent()
        at = parent.index(simple)
        for offset, child in enumerate(list(simple)):
            parent.insert(at + offset, child)
        parent.remove(simple)


def _keep_web_links(root: Any, links: dict[str, str]) -> None:
    """A hyperlink whose relationship is not a web or mail address loses its link, keeps its text."""
    for link in root.iter(f"{W}hyperlink"):
        target = link.get(R_ID)
        if target is not None and target not in links:
            del link.attrib[R_ID]


def _mark_code(root: Any, styles: dict[str, str]) -> None:
    """Code paragraphs get ``CODE_STYLE_ID``, and their line breaks become newlines in the text."""
    for paragraph in root.iter(f"{W}p"):
        if not _is_code(paragraph, styles):
            continue
        properties = paragraph.find(f"{W}pPr")
        if properties is None:
            properties = paragraph.makeelement(f"{W}pPr", {})
            paragraph.insert(0, properties)
        style = properties.find(f"{W}pStyle")
        if style is None:
            style = properties.makeelement(f"{W}pStyle", {})
            properties.insert(0, style)
        style.set(f"{W}val", CODE_STYLE_ID)
        for brk in list(paragraph.iter(f"{W}br", f"{W}cr")):
            if brk.get(f"{W}type") in ("page", "column"):
                continue
            newline = brk.makeelement(f"{W}t", {"{http://www.w3.org/XML/1998/namespace}space": "preserve"})
            newline.text = "\n"
            brk.getparent().replace(brk, newline)


def _is_code(paragraph: Any, styles: dict[str, str]) -> bool:
    style = paragraph.find(f"{W}pPr/{W}pStyle")
    if style is not None and _CODE_STYLE.search(styles.get(style.get(f"{W}val", ""), style.get(f"{W}val", "").lower())):
        return True
    runs = [run for run in paragraph.iter(f"{W}r") if "".join(t.text or "" for t in run.iter(f"{W}t")).strip()]
    return bool(runs) and all(_monospace(run, styles) for run in runs)


def _monospace(run: Any, styles: dict[str, str]) -> bool:
    fonts = run.find(f"{W}rPr/{W}rFonts")
    if fonts is not None:
        named = {fonts.get(f"{W}{key}", "").lower() for key in ("ascii", "hAnsi")} - {""}
        if named:
            return named <= MONOSPACE_FONTS
    style = run.find(f"{W}rPr/{W}rStyle")
    return style is not None and bool(_CODE_STYLE.search(styles.get(style.get(f"{W}val", ""), "")))


def media_names(data: bytes) -> dict[str, str]:
    """sha256 of each picture in the package's media -> its file name ("image1.png")."""
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return {
            hashlib.sha256(package.read(info)).hexdigest(): PurePosixPath(info.filename).name
            for info in package.infolist()
            if "/media/" in info.filename
        }


def docx_markdown(data: bytes, source: str, limits: IngestConfig) -> tuple[str, tuple[ImageNote, ...]]:
    """The Markdown of a checked DOCX package, and a note on each of its pictures."""
    import mammoth
    from markitdown.converter_utils.docx.pre_process import pre_process_docx

    from workbench.ingestion.parsers.converter import convert
    from workbench.ingestion.parsers.images import ImageError
    from workbench.ingestion.parsers.pdf.image_text import ocr_characters
    from workbench.ingestion.parsers.picture_text import PictureReader, open_picture

    names = media_names(data)
    pictures = DocxPictures()
    reader = PictureReader(limits, ocr_characters)

    def read_picture(image: Any) -> dict[str, str]:
        with image.open() as stream:
            blob = stream.read()
        number = len(pictures.names)
        name = names.get(hashlib.sha256(blob).hexdigest(), f"image{number + 1}")
        text = ""
        try:
            text, note = reader.read(open_picture(blob, limits), 0, 0.0, name)
        except ImageError as error:  # EMF, WMF, SVG: formats Pillow does not draw
            note = ImageNote(0, 0.0, skipped=f"not read: {error}", name=name)
        pictures.names.append(name)
        pictures.texts.append(text)
        pictures.notes.append(note)
        return {"src": f"{_IMAGE_TOKEN}{number}"}

    html = mammoth.convert_to_html(
        pre_process_docx(io.BytesIO(faithful_package(data))),
        style_map=STYLE_MAP,
        convert_image=mammoth.images.img_element(read_picture),
    ).value
    markdown = convert(html.encode("utf-8"), source, "html", charset="utf-8").markdown
    return _with_pictures(markdown, pictures), tuple(pictures.notes)


def _with_pictures(markdown: str, pictures: DocxPictures) -> str:
    """Each picture's Markdown image replaced by its OCR text (a quoted block of its own, or one line
    inside a table row) or by ``[image: name]``."""
    lines = []
    for line in markdown.split("\n"):
        in_table = line.lstrip().startswith("|")

        def replaced(match: re.Match[str], in_table: bool = in_table) -> str:
            return picture_text(
                pictures.names[int(match.group(2))], match.group(1), pictures.texts[int(match.group(2))], in_table
            )

        lines.append(_IMAGE_REF.sub(replaced, line))
    return "\n".join(lines)


def picture_text(name: str, description: str, text: str, inline: bool = False) -> str:
    """How a picture stands in the Markdown: its OCR text as a quoted block (one line ``inline``),
    or ``[image: name]`` with the author's description when it has one."""
    from workbench.ingestion.parsers.pdf.image_text import LABELS, image_text_markdown, ocr_paragraphs
    from workbench.language.scripts import text_language

    if text and inline:
        label = LABELS["zh" if text_language(text) == "zh" else "en"]
        return f"{label} " + " ".join(ocr_paragraphs(text)).replace("|", "/")  # a cell's text ends at a bar
    if text:
        return "\n\n" + image_text_markdown(text) + "\n\n"
    description = re.sub(r"\s+", " ", description).strip()
    return f"[image: {name}: {description}]" if description and description != name else f"[image: {name}]"
