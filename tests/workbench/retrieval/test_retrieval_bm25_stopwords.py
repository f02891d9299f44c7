"""bm25.stopwords: which English words BM25 leaves out, and what each choice does to a question
that shares only a question word with a chunk."""

from __future__ import annotations

from workbench.config import WorkbenchConfig
from workbench.ingestion.ingest import Source
from workbench.layout import Layout

NOTES = {
    "tides.md": "# Tides\n\nWhat the moon does to the sea: it pulls the water into two bulges.\n",
    "quokkas.md": "# Quokkas\n\nQuokkas live on Rottnest Island and eat leaves and grass.\n",
}
OFF_TOPIC = "what do otters eat?"


def test_en_plus_leaves_question_words_out_and_the_default_keeps_its_layout_key(bench, fake_embedder, fake_config):
    report = bench.ingest("notes", [Source.from_markdown(name, text) for name, text in NOTES.items()], fake_config)
    assert not report.failures
    keyword = bench.config_for("notes").with_value("retrieval.mode", "bm25")
    plus = keyword.with_value("bm25.stopwords", "en_plus")

    # en (the default, 33 words): "what" is a term, so the tides chunk answers an otter question
    matched = bench.query(OFF_TOPIC, "notes", keyword)
    sources = {view.source for view in matched.final_chunks()}
    assert sources == {"tides.md", "quokkas.md"}  # "what" and "eat"
    # en_plus (179 words): only "otters" and "eat" count, and only the quokka chunk eats
    assert {view.source for view in bench.query(OFF_TOPIC, "notes", plus).final_chunks()} == {"quokkas.md"}
    assert bench.snapshot("notes", plus).folder != bench.snapshot("notes", keyword).folder  # its own index

    # an index built before the key existed was built with en: the default's key is unchanged
    assert WorkbenchConfig().bm25.stopwords == "en"
    earlier = WorkbenchConfig().with_value("chunking.fit_window", False)  # chunks as they were then
    assert Layout.of(earlier).key == "recursive-1000c-100-2eb45292a4-8efa64"
    assert Layout.of(WorkbenchConfig().with_value("bm25.stopwords", "en_plus")).key != Layout.of(WorkbenchConfig()).key
