"""Reviewing a generated set: accept marks, an edit keeps the model's text, reject removes the item."""

from __future__ import annotations

import json

import pytest

from workbench.evaluation import golden
from workbench.golden.review import ACCEPT, PENDING, REJECT, apply_review, quote_in_context, rows

LINES = [
    {
        "id": "synth-1",
        "query": "What sets the walrus option?",
        "meta": {"kind": "specific", "review": "pending", "overlap": 0.25},
        "relevant": [{"doc": "a.md", "start": 10, "end": 20, "quote": "walrus opt"}],
    },
    {"id": "synth-2", "query": "What did otters cost in 1850?", "meta": {"kind": "unanswerable"}, "relevant": []},
    {
        "id": "synth-3",
        "query": "copy of the text",
        "meta": {"kind": "abstract"},
        "relevant": [{"doc": "b.md", "start": 0, "end": 5, "quote": "copy "}],
    },
]


@pytest.fixture
def generated(tmp_path):
    path = tmp_path / "home" / "golden_sets" / "gen.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES), "utf-8")
    return path


def test_rows_show_kind_quote_documents_and_decision(generated):
    shown = rows(golden.load(generated))
    assert [(r.id, r.kind, r.quote, r.documents, r.decision) for r in shown] == [
        ("synth-1", "specific", "walrus opt", "a.md", PENDING),
        ("synth-2", "unanswerable", "", "(unanswerable)", PENDING),
        ("synth-3", "abstract", "copy ", "b.md", PENDING),
    ]


def test_accept_edit_and_reject_are_written_back(generated, tmp_path):
    counts = apply_review(
        generated,
        {
            "synth-1": (ACCEPT, "What sets the walrus option?"),
            "synth-2": (PENDING, "  How much did an otter cost   in 1850? "),
            "synth-3": (REJECT, "copy of the text"),
        },
        tmp_path / "home",
    )
    assert counts == {"accepted": 1, "edited": 1, "rejected": 1}
    kept = golden.load(generated)
    assert [q.id for q in kept.queries] == ["synth-1", "synth-2"]
    assert kept.queries[0].meta["review"] == "accepted"
    assert kept.queries[1].query == "How much did an otter cost in 1850?"
    assert kept.queries[1].meta == {
        "kind": "unanswerable",
        "review": "edited",
        "generated": "What did otters cost in 1850?",
    }
    dropped = tmp_path / "home" / "golden_sets" / ".synth" / "gen.rejected-in-review.jsonl"
    assert json.loads(dropped.read_text("utf-8"))["id"] == "synth-3"
    assert rows(kept)[0].decision == ACCEPT and rows(kept)[1].decision == ACCEPT


def test_rejecting_everything_is_refused_and_changes_nothing(generated, tmp_path):
    before = generated.read_text("utf-8")
    with pytest.raises(ValueError, match="leave gen.jsonl empty"):
        apply_review(generated, {line["id"]: (REJECT, line["query"]) for line in LINES}, tmp_path / "home")
    assert generated.read_text("utf-8") == before


def test_quote_in_context_cuts_a_margin_each_side():
    text = "0123456789" * 10
    assert quote_in_context(text, 50, 55, margin=5) == ("…" + text[45:50], "01234", text[55:60] + "…")
    assert quote_in_context(text, 0, 3, margin=5) == ("", "012", "34567…")
