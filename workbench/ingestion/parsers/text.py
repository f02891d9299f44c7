"""Text and data files: Markdown and plain text as they are, JSON pretty-printed, CSV as a table.

``.md``/``.markdown``/``.txt`` are decoded and used as they are (no conversion), so offsets
stay faithful to what the author wrote. ``.json`` is parsed and pretty-printed (2-space indent,
non-ASCII kept) inside a fenced ``json`` code block: markitdown would pass it through unchanged,
and minified JSON is one enormous line that neither chunkers nor readers can work with. ``.csv``
becomes a Markdown table through markitdown.

Decoding is deliberately predictable, see :func:`decode_text`: a byte-order mark wins, then
strict UTF-8, then Windows-1252 for text that looks like legacy Western text; anything else is
refused with a request to re-save as UTF-8 rather than guessed (charset detection guesses wrong
on short texts and silently produces mojibake).
"""

from __future__ import annotations

import json
import re

from workbench.config import IngestConfig
from workbench.ingestion.parsers.converter import convert
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers

# Byte-order marks, longest first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
# Legacy Western text is mostly ASCII with scattered accented letters; Cyrillic, Greek and East
# Asian legacy encodings are mostly bytes >= 0x80, and reading those as Windows-1252 gives
# mojibake that would poison the index, so they are refused instead.
_MAX_HIGH_BYTE_SHARE_FOR_CP1252 = 0.3
_RESAVE_AS_UTF8 = "re-save it as UTF-8 (e.g. 'Save As' > Encoding: UTF-8) and upload it again"


def decode_text(data: bytes, source: str) -> str:
    """Decode a text file: a byte-order mark (UTF-8/16/32) wins, then strict UTF-8, then
    Windows-1252 if the bytes look like legacy Western text; anything else is a ParseError.

    Files with NUL bytes and no UTF-16/32 mark are treated as binary rather than text.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise ParseError(
                    source, f"not valid {encoding.upper()} text despite its byte-order mark; {_RESAVE_AS_UTF8}"
                ) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        raise ParseError(source, "binary data, not text; check that you picked the right file")
    high_share = sum(byte >= 0x80 for byte in data) / len(data)
    if high_share <= _MAX_HIGH_BYTE_SHARE_FOR_CP1252:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            pass
    raise ParseError(source, f"not UTF-8 text, and its encoding could not be determined reliably; {_RESAVE_AS_UTF8}")


def extract_plain(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    return Extraction((decode_text(data, source),))


def extract_json(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    text = decode_text(data, source)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            source,
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it, or rename it to .txt to index it as plain text",
        ) from exc
    except RecursionError as exc:
        raise ParseError(source, "JSON nested too deeply to read; flatten it or rename it to .txt") from exc
    pretty = json.dumps(value, indent=2, ensure_ascii=False)
    # A fence longer than any backtick run inside cannot be closed early by the content.
    longest_run = max((len(run) for run in re.findall(r"`+", pretty)), default=0)
    fence = "`" * max(3, longest_run + 1)
    return Extraction((f"{fence}json\n{pretty}\n{fence}",))


def extract_csv(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    text = decode_text(data, source)
    return Extraction((convert(text.encode("utf-8"), source, "csv", charset="utf-8").markdown,))


register_parsers(
    {".md": "md", ".markdown": "md", ".txt": "txt", ".csv": "csv", ".json": "json"},
    {"md": extract_plain, "txt": extract_plain, "csv": extract_csv, "json": extract_json},
)
