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
    """One picture: its page (1-based), the share of the page it covers, and either the characters
    OCR read in it or why it was not read (``skipped``)."""

    page: int
    share: float
    characters: int = 0
    skipped: str = ""

    @property
    def read(self) -> bool:
        return not self.skipped

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, stored: dict) -> ImageNote:
        return cls(int(stored["page"]), float(stored["share"]), int(stored["characters"]), str(stored["skipped"]))


def _pages(notes: Sequence[ImageNote]) -> str:
    pages = sorted({note.page for note in notes})
    return f"page{'s' if len(pages) > 1 else ''} {', '.join(str(page) for page in pages)}"


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
