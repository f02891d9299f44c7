"""Document text and file names are shown as text everywhere, never interpreted as HTML."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.service import Workbench

NAME = "<b>notes</b> *draft*.md"
MARKUP = "# <img src=x onerror=alert(1)>\n\nSome text with <script>alert(1)</script> inside.\n"


def test_markup_in_names_and_text_is_escaped(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy, page="app_pages/documents.py")
    app.file_uploader[0].set_value([(NAME, MARKUP.encode(), "text/markdown")]).run()
    app.button(key="ingest_uploads").click().run()
    assert not app.exception, app.exception
    document = Workbench(demo_home_copy).document(NAME, "demo")
    app.selectbox(key="documents_inspect").set_value(document.id).run()
    # Markdown elements carry the name backslash-escaped, so it renders literally
    assert app.button(key="delete_document").label == "Delete \\<b\\>notes\\</b\\> \\*draft\\*\\.md"
    assert app.code[0].value == MARKUP.strip()  # the canonical Markdown, shown as code: as written
    app.switch_page("app_pages/chunking_lab.py").run()
    app.selectbox(key="chunk_lab_document").set_value(document.id).run()
    assert not app.exception, app.exception
    for band in app.get("html"):
        assert "<script" not in band.proto.body and "<img" not in band.proto.body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in band.proto.body

    app.switch_page("app_pages/embedding_map.py").run()
    spec = app.get_by_key("embedding_map_chart").proto.spec
    names = [trace["name"] for trace in json.loads(spec)["data"]]
    assert "&lt;img src=x onerror=alert(1)&gt;" in names  # the document's title, from its heading
    assert "<img" not in spec and "<script" not in spec and "<b>notes" not in spec
