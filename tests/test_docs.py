"""README stays a two-minute read and the documentation's links hold.

`mkdocs build --strict` (in `make lint`) checks the site's navigation and the links between its
pages; these tests check what it cannot see: README itself (not part of the site), its links
into `docs/`, and the modules README must name because they are over the size limit.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

PROJECT_DIR = Path(__file__).resolve().parents[1]
README = PROJECT_DIR / "README.md"
DOCS = PROJECT_DIR / "docs"

README_MAX_LINES = 250
MODULE_MAX_LINES = 450
#: where the module limit applies
CODE_ROOTS = ("workbench", "store", "app_pages")
LARGE_MODULES_HEADING = "## Large modules"
IMAGE_MAX_BYTES = 300_000

#: `[text](target)` and `![alt](target)`, target up to the first space or closing parenthesis
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def markdown_links(text: str) -> list[str]:
    """Link and image targets of a Markdown text, outside fenced code blocks and code spans."""
    prose = _CODE_SPAN.sub("", _FENCE.sub("", text))
    return _LINK.findall(prose)


def is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) and not target.startswith(("#", "/"))


def broken_links(page: Path) -> list[str]:
    """The relative link targets of ``page`` that name no file (an anchor after the file is not checked)."""
    broken = []
    for target in markdown_links(page.read_text(encoding="utf-8")):
        if not is_relative(target):
            continue
        path = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not (page.parent / path).is_file():
            broken.append(target)
    return broken


def section(text: str, heading: str) -> str:
    """The body of the section under ``heading``, up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next(
        (i for i in range(start, len(lines)) if re.match(rf"^#{{1,{len(level)}}} ", lines[i])),
        len(lines),
    )
    return "\n".join(lines[start:end])


def modules_over_limit() -> dict[str, int]:
    sizes = {}
    for root in CODE_ROOTS:
        for module in sorted((PROJECT_DIR / root).rglob("*.py")):
            lines = len(module.read_text(encoding="utf-8").splitlines())
            if lines > MODULE_MAX_LINES:
                sizes[module.relative_to(PROJECT_DIR).as_posix()] = lines
    return sizes


def test_markdown_links_skip_code_and_keep_images() -> None:
    text = (
        'See [a](docs/a.md#part) and ![shot](docs/images/x.png "title"), not `[b](b.md)`.\n'
        "```\n[c](c.md)\n```\n[web](https://example.org) [here](#top)\n"
    )
    links = markdown_links(text)
    assert links == ["docs/a.md#part", "docs/images/x.png", "https://example.org", "#top"]
    assert [link for link in links if is_relative(link)] == ["docs/a.md#part", "docs/images/x.png"]


def test_broken_links_finds_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# there\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#x) [gone](missing.md) [web](http://localhost:8501/documents)\n")
    assert broken_links(page) == ["missing.md"]


def test_section_stops_at_the_next_heading_of_its_level() -> None:
    text = "# T\n## Large modules\nfirst\n### detail\nsecond\n## Next\nthird\n"
    assert section(text, "## Large modules") == "first\n### detail\nsecond"


def test_readme_is_a_two_minute_read() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines; keep it to {README_MAX_LINES} and move reference to docs/"
    )


def test_every_relative_link_in_readme_and_docs_names_a_file() -> None:
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    assert len(pages) > 10, "the documentation pages are missing from docs/"
    broken = {page.relative_to(PROJECT_DIR).as_posix(): links for page in pages if (links := broken_links(page))}
    assert not broken, f"links to files that do not exist: {broken}"


def test_readme_shows_the_screenshot_and_it_is_small() -> None:
    readme = README.read_text(encoding="utf-8")
    images = [link for link in markdown_links(readme) if link.endswith(".png")]
    assert images, "README shows no screenshot"
    for image in images:
        size = (PROJECT_DIR / image).stat().st_size
        assert size < IMAGE_MAX_BYTES, f"{image} is {size:,} bytes; keep screenshots under {IMAGE_MAX_BYTES:,}"


def test_readme_names_every_module_over_the_size_limit() -> None:
    """Every module over the limit is named in README's "Large modules" section (with its reason),
    and every module named there is still over it."""
    named_section = section(README.read_text(encoding="utf-8"), LARGE_MODULES_HEADING)
    large = modules_over_limit()
    unnamed = {module: lines for module, lines in large.items() if f"`{module}`" not in named_section}
    assert not unnamed, (
        f"modules over {MODULE_MAX_LINES} lines not named in README's '{LARGE_MODULES_HEADING}': {unnamed}"
    )
    named = set(re.findall(r"`((?:workbench|store|pages)/[\w/]+\.py)`", named_section))
    stale = sorted(named - set(large))
    assert not stale, (
        f"README's '{LARGE_MODULES_HEADING}' names modules no longer over {MODULE_MAX_LINES} lines: {stale}"
    )
