"""Checks on ZIP-based files (DOCX, PPTX, XLSX) before any parser inflates them.

A ZIP package can declare gigabytes of content in a few hundred kilobytes (a "zip bomb"), and
every Office parser reads the parts it needs whole. The central directory lists each member's
compressed and uncompressed size, so the total, the ratio and the member count are known
before a single byte is inflated. The declared sizes are trustworthy for what follows: the
parsers read members through Python's ``zipfile``, which never returns more bytes than a
member declares (a member that inflates further fails its CRC check instead).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from workbench.config import IngestConfig

MB = 1024 * 1024


@dataclass(frozen=True)
class ZipFigures:
    members: int
    compressed_bytes: int
    uncompressed_bytes: int

    @property
    def ratio(self) -> float:
        return self.uncompressed_bytes / max(self.compressed_bytes, 1)


def zip_figures(data: bytes) -> ZipFigures:
    """Member count and total sizes from the central directory (raises zipfile.BadZipFile)."""
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        infos = package.infolist()
    return ZipFigures(
        members=len(infos),
        compressed_bytes=sum(info.compress_size for info in infos),
        uncompressed_bytes=sum(info.file_size for info in infos),
    )


def container_violation(figures: ZipFigures, limits: IngestConfig) -> str | None:
    """Why this package may not be opened, naming the limit and the setting that raises it."""
    if figures.members > limits.max_zip_members:
        return (
            f"ZIP container with {figures.members:,} members, over the limit of {limits.max_zip_members:,} "
            f"(ingest.max_zip_members); if you trust the file, raise it with "
            f"--set ingest.max_zip_members={figures.members}"
        )
    inflated_mb = figures.uncompressed_bytes / MB
    if inflated_mb > limits.max_unzipped_mb:
        return (
            f"ZIP container that inflates to {inflated_mb:,.0f} MB, over the {limits.max_unzipped_mb:g} MB "
            f"limit (ingest.max_unzipped_mb) -- a zip bomb, or a very large document; if you trust it, "
            f"raise it with --set ingest.max_unzipped_mb={int(inflated_mb) + 1}"
        )
    if figures.uncompressed_bytes > MB and figures.ratio > limits.max_compression_ratio:
        # below 1 MB inflated nothing can hurt, and tiny repetitive parts compress extremely well
        return (
            f"ZIP container compressed {figures.ratio:,.0f}:1, over the ratio limit of "
            f"{limits.max_compression_ratio:g}:1 (ingest.max_compression_ratio) -- typical of a zip bomb; "
            f"if you trust the file, raise it with --set ingest.max_compression_ratio={int(figures.ratio) + 1}"
        )
    return None
