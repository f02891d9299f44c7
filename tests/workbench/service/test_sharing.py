"""Sharing settings, token checks, and the read-only Workbench refusing writes and LLM calls itself."""

from __future__ import annotations

import pytest

from workbench.facade import ReadOnlyError
from workbench.service.sharing import (
    LOCAL,
    READ_ONLY,
    SHARED,
    SharingError,
    access_for,
    configured_token,
    is_loopback,
    new_token,
    share_mode,
    tokens_match,
)


@pytest.mark.parametrize(
    ("value", "mode"),
    [("", LOCAL), ("0", LOCAL), ("1", SHARED), ("yes", SHARED), ("readonly", READ_ONLY), ("READ-ONLY", READ_ONLY)],
)
def test_share_modes(value, mode):
    assert share_mode({"WORKBENCH_SHARE": value}) == mode
    assert share_mode({}) == LOCAL


def test_an_unknown_share_mode_names_the_values():
    with pytest.raises(SharingError, match=r"WORKBENCH_SHARE='everyone' is not a sharing mode; use 1 .* readonly"):
        share_mode({"WORKBENCH_SHARE": "everyone"})


def test_a_short_token_is_refused_and_a_generated_one_is_long_and_fresh():
    with pytest.raises(SharingError, match="WORKBENCH_TOKEN is 6 characters; use at least 16"):
        configured_token({"WORKBENCH_TOKEN": "secret"})
    assert configured_token({}) == ""
    first, second = new_token(), new_token()
    assert len(first) >= 43 and first != second


def test_tokens_match_exactly_and_never_when_empty():
    token = "A" * 20 + "-token"
    assert tokens_match(token, token)
    assert not tokens_match(token[:-1], token)
    assert not tokens_match(token + "x", token)
    assert not tokens_match("", token) and not tokens_match(None, token) and not tokens_match("", "")


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_loopback_addresses(address, loopback):
    assert is_loopback(address) is loopback


def test_sign_in_is_needed_when_shared_or_when_listening_beyond_this_machine():
    assert not access_for(LOCAL, "127.0.0.1").needs_sign_in
    assert access_for(LOCAL, "0.0.0.0").needs_sign_in  # bound wide without WORKBENCH_SHARE: still gated
    assert access_for(SHARED, "127.0.0.1").needs_sign_in
    assert access_for(READ_ONLY, "0.0.0.0").read_only


@pytest.fixture(scope="module")
def read_only_bench(tmp_path_factory):
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("read-only-home")
    Workbench(home).create_collection("notes")
    return Workbench(home, read_only=True)


@pytest.mark.parametrize(
    ("call", "action"),
    [
        (lambda b: b.create_collection("more"), "Creating a collection"),
        (lambda b: b.delete_collection("notes"), "Deleting a collection"),
        (lambda b: b.save_preset("p", {"retrieval.top_k": 3}), "Saving a preset"),
        (lambda b: b.set_default_preset("notes", "default"), "Changing the default preset"),
        (lambda b: b.ingest("notes", []), "Uploading documents"),
        (lambda b: b.delete_document("notes", "1"), "Deleting a document"),
        (lambda b: b.store_collection_settings("notes", {}), "Changing a collection's settings"),
    ],
)
def test_a_read_only_workbench_refuses_writes_with_the_reason(read_only_bench, call, action):
    with pytest.raises(ReadOnlyError) as refused:
        call(read_only_bench)
    assert str(refused.value).startswith(
        f"{action} is refused: this is a read-only shared session (WORKBENCH_SHARE=readonly)"
    )
    assert read_only_bench.collection_names() == ["notes"]  # and reads still work


def test_a_read_only_workbench_makes_no_llm_call(read_only_bench, fake_llm):
    llm = read_only_bench.llm()
    assert not llm.available
    assert llm.unavailable_reason("LLM rerank") == (
        "LLM rerank needs an LLM endpoint, which is refused in a read-only shared session (WORKBENCH_SHARE=readonly)"
    )
    assert fake_llm.count() == 0


def test_a_read_only_workbench_runs_no_sweep(read_only_bench):
    from workbench.config import WorkbenchConfig
    from workbench.evaluation.golden import GoldenSet
    from workbench.evaluation.sweep import run_sweep

    with pytest.raises(ReadOnlyError, match="Running a sweep is refused"):
        run_sweep(read_only_bench, "notes", GoldenSet("g", []), WorkbenchConfig(), {"fusion.k": [10, 60]})
