"""What a parser did with the pictures inside a document: read their text (OCR), or skipped them and why.

A document keeps its notes (``ParsedDocument.images``, stored with it), so the ingest output and
the Documents page can say which pictures' text is searchable and which is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from workbench.text import count


@dataclass(frozen=True)
class ImageNote:
    """One picture: its page or slide (1-based; 0 in a document without pages), the share of the
    page it covers (0 when unknown), and either the characters OCR read in it or why it was not read
    (``skipped``); ``name`` is its part in a DOCX or PPTX package ("image1.png"), ``retryable`` says
    that ``sync --ocr`` may read it (skipped for time, a limit or a missing tesseract; not one
    without text, nor one under the page's own text)."""

    page: int
    share: float
    characters: int = 0
    skipped: str = ""
    name: str = ""
    retryable: bool = False

    @property
    def read(self) -> bool:
        return not self.skipped

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, stored: dict) -> ImageNote:
        skipped = str(stored["skipped"])
        # notes stored before the text check: every skip but the covered one was for size, count or time
        retryable = stored.get("retryable", bool(skipped) and "drawn over it" not in skipped)
        return cls(
            int(stored["page"]),
            float(stored["share"]),
            int(stored["characters"]),
            skipped,
            str(stored.get("name", "")),
            bool(retryable),
        )


def _pages(notes: Sequence[ImageNote]) -> str:
    pages = sorted({note.page for note in notes if note.page})
    names = [note.name for note in notes if not note.page and note.name]
    where = [f"page{'s' if len(pages) > 1 else ''} {', '.join(str(page) for page in pages)}"] if pages else []
    return ", ".join(where + names) or "no page"


def describe_images(notes: Iterable[ImageNote]) -> list[str]:
    """One line for the pictures read, one for those read with no text found, one per reason for
    the rest: "OCR read the text of 2 images (pages 3, 5): 812 characters"; "skipped 3 images
    under 25% of the page (ingest.ocr_image_share=0.25), pages 1, 2"."""
    notes = list(notes)
    read = [note for note in notes if note.read and note.characters]
    empty = [note for note in notes if note.read and not note.characters]
    lines = []
    if read:
        characters = sum(note.characters for note in read)
        lines.append(f"OCR read the text of {count(len(read), 'image')} ({_pages(read)}): {characters:,} characters")
    if empty:
        lines.append(f"OCR found no text in {count(len(empty), 'image')} ({_pages(empty)})")
    reasons: dict[str, list[ImageNote]] = {}
    for note in notes:
        if not note.read:
            reasons.setdefault(note.skipped, []).append(note)
    for reason, skipped in reasons.items():
        lines.append(f"skipped {count(len(skipped), 'image')}, {reason} ({_pages(skipped)})")
    return lines


def images_in_brief(notes: Iterable[ImageNote]) -> str:
    """ "2 read by OCR, 3 skipped", or "" for a document without pictures."""
    notes = list(notes)
    if not notes:
        return ""
    read = sum(1 for note in notes if note.read)
    return f"{read} read by OCR, {len(notes) - read} skipped"


def notes_of(parse_report: dict | None) -> list[ImageNote]:
    """The picture notes a stored document's parse report holds."""
    return [ImageNote.from_json(stored) for stored in (parse_report or {}).get("images", [])]


def retryable(notes: Iterable[ImageNote]) -> list[ImageNote]:
    """The pictures ``sync --ocr`` may read now: skipped for time, a limit or a missing tesseract."""
    return [note for note in notes if note.skipped and note.retryable]
