"""The chunk value shared by chunking, the catalog, the indexes and the UI."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of a document's canonical Markdown.

    Invariant: ``markdown[start:end] == text``. ``heading_path`` lists the Markdown headings
    enclosing ``start`` (outermost first); ``page`` is 1-based where the source has pages.
    """

    text: str
    start: int
    end: int
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    metadata: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.end - self.start != len(self.text):
            raise ValueError(f"chunk offsets [{self.start}, {self.end}) do not span its {len(self.text)} characters")
