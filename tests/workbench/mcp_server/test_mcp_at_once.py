"""Which search calls the server answers on its event loop: those that need nothing slow (the
target kept, the indexes loaded, the query's vector kept, no model or endpoint to call). Every
other call, a mistake included, goes to a worker thread, and both give the same answer."""

from __future__ import annotations

import threading

import anyio
import pytest

from tests.workbench.tuning_fixtures import lexicon_home, lexicon_template, tune_embedder  # noqa: F401
from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.server import HubProvider
from workbench.mcp_server.tools import KnowledgeHub

ASKED = "How do I descale a kettle?"


def ask_until_kept(hub: KnowledgeHub, most: int = 5) -> None:
    """Ask as a client's first calls do, at most ``most`` times, until the answer could come at
    once: a catalog read that saw the files change (the first opening of a copied home, or the
    one after a write, still writes to them) is not kept; a later one is."""
    for _ in range(most):
        hub.query_knowledge_hub(ASKED, 3, None, None, None)
        if hub.answers_at_once("query_knowledge_hub", ASKED, None):
            return


@pytest.fixture
def hub(lexicon_home):  # noqa: F811
    return KnowledgeHub(lexicon_home.bench(), ServerDefaults(collection="lex"))


def test_a_search_is_answered_at_once_only_once_nothing_slow_is_left(hub):
    assert hub.resolve(None, None).config.retrieval.mode == "hybrid"  # the dense route embeds the query
    assert not hub.answers_at_once("query_knowledge_hub", ASKED, None)  # nothing resolved or loaded
    ask_until_kept(hub)
    assert hub.answers_at_once("query_knowledge_hub", ASKED, None)
    assert not hub.answers_at_once("query_knowledge_hub", "a question never asked", None)  # to embed
    assert hub.answers_at_once("search_by_keyword", "a question never asked", None)  # BM25 only
    assert hub.answers_at_once("search_by_keyword", "如何给水壶除垢？", None)
    assert not hub.answers_at_once("search_by_semantic", "a question never asked", None)
    assert not hub.answers_at_once("query_knowledge_hub", "   ", None)  # a mistake: the thread's call says so
    assert not hub.answers_at_once("query_knowledge_hub", ASKED, "no-such-collection")


def test_a_changed_catalog_is_read_on_a_worker_thread_first(hub):
    ask_until_kept(hub)
    assert hub.answers_at_once("query_knowledge_hub", ASKED, None)
    hub.bench.save_preset("keyword-only", {"retrieval.mode": "bm25"})
    assert not hub.answers_at_once("query_knowledge_hub", ASKED, None)  # the catalog changed
    ask_until_kept(hub)
    assert hub.answers_at_once("query_knowledge_hub", ASKED, None)


def test_the_provider_answers_on_the_loop_once_it_can_and_the_answers_agree(lexicon_home):  # noqa: F811
    provider = HubProvider(lexicon_home.home, ServerDefaults(collection="lex"))
    threads: list[int] = []

    def produce(hub):
        threads.append(threading.get_ident())
        return hub.query_knowledge_hub(ASKED, 3, None, None, None)

    async def ask_three_times():
        at_once = lambda hub: hub.answers_at_once("query_knowledge_hub", ASKED, None)  # noqa: E731
        answers = [await provider.answer(produce, at_once) for _ in range(3)]
        return threading.get_ident(), answers

    loop_thread, answers = anyio.run(ask_three_times)
    # worker threads until the target is kept and the vector made (see ask_until_kept), then the loop
    assert threads[0] != loop_thread and threads[-1] == loop_thread
    assert not answers[0].is_error and answers[0].structured_content == answers[-1].structured_content


def test_mmr_over_bm25_alone_waits_for_the_querys_vector_too(hub):
    """MMR weighs each pick's similarity to the query, so a BM25 preset with MMR embeds it."""
    hub.bench.save_preset("bm25-mmr", {"retrieval.mode": "bm25", "mmr.enabled": True})
    for _ in range(5):
        hub.query_knowledge_hub(ASKED, 3, None, "bm25-mmr", None)
        if hub.answers_at_once("query_knowledge_hub", ASKED, None, "bm25-mmr"):
            break
    assert hub.answers_at_once("query_knowledge_hub", ASKED, None, "bm25-mmr")
    assert not hub.answers_at_once("query_knowledge_hub", "混合检索如何融合排名？", None, "bm25-mmr")


def test_an_answer_on_the_loop_does_not_wait_for_a_worker_threads_pipeline_lock(lexicon_home):  # noqa: F811
    """A rerank on a worker thread holds the pipeline lock for as long as its model runs; a
    search answered on the event loop calls no model, and waiting there would stall every client."""
    provider = HubProvider(lexicon_home.home, ServerDefaults(collection="lex"))
    ask_until_kept(provider.get())
    held, answered, released = threading.Event(), threading.Event(), threading.Event()

    def hold_the_lock():
        with provider.get()._pipeline_lock:
            held.set()
            answered.wait(timeout=10)  # without the fix the loop waits here until this ends
        released.set()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    held.wait()

    async def ask():
        return await provider.answer(
            lambda hub: hub.query_knowledge_hub(ASKED, 3, None, None, None),
            lambda hub: hub.answers_at_once("query_knowledge_hub", ASKED, None),
        )

    result = anyio.run(ask)
    answered_while_held = not released.is_set()
    answered.set()
    holder.join()
    assert answered_while_held and not result.is_error and result.structured_content["citations"]
