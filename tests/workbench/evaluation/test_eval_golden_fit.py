"""Which golden sets belong to a collection: by the documents they judge, else by their name."""

from __future__ import annotations

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.evaluation.golden_fit import belongs_to, collection_names, judged_documents


def _set(name: str, *docs: str) -> GoldenSet:
    return GoldenSet(
        name, tuple(GoldenQuery(f"q{i}", f"question {i}", (RelevantItem(doc),)) for i, doc in enumerate(docs))
    )


def test_a_set_belongs_where_at_least_half_its_judged_documents_are():
    names = collection_names([("guide.md", None), ("faq.pdf", "kb-17")])
    assert names == {"guide.md", "guide", "faq.pdf", "faq", "kb-17"}
    assert belongs_to(_set("x", "guide", "kb-17"), "notes", names)  # a stem and an external id
    assert belongs_to(_set("x", "guide.md", "other.md"), "notes", names)  # 1 of 2: half
    assert not belongs_to(_set("x", "guide.md", "a.md", "b.md"), "notes", names)  # 1 of 3
    assert not belongs_to(_set("demo", "scifact-1.md"), "notes", names)
    assert judged_documents(_set("x", "a", "a", "b")) == {"a", "b"}


def test_a_set_that_judges_nothing_yet_goes_by_its_name():
    empty = GoldenSet("notes-synth", (GoldenQuery("q1", "not answered here", ()),))
    assert belongs_to(empty, "notes", set())
    assert not belongs_to(empty, "note", set())  # "note-" is not a prefix of "notes-synth"
    assert belongs_to(GoldenSet("notes", ()), "notes", set())
    assert not belongs_to(GoldenSet("demo", ()), "notes", set())
