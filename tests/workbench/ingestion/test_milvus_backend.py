"""A collection on Milvus Lite behaves like the same collection on local files: same rankings,
filters run in Milvus, the catalog stays the source of truth (sync repairs, nothing is
re-embedded), collections move between backends, and a Milvus that is down is named."""

from __future__ import annotations

import socket

import duckdb
import numpy as np
import pytest

from store import documents as stored_documents
from store.index_set import Snapshot, read_current
from store.milvus import CONNECTIONS, MilvusCollection, MilvusUnavailable
from tests.workbench.corpus import DOCS
from workbench.backends import open_snapshot_indexes
from workbench.backends.milvus.place import milvus_target
from workbench.config import ConfigError
from workbench.ingestion.indexing import layout_dir
from workbench.ingestion.ingest import Source
from workbench.layout import Layout

MILVUS = ["index.backend=milvus"]
QUERIES = [
    "solar panels and batteries",
    "bake bread dough in an oven",
    "river floods after rain",
    "chess opening with the king's pawn",
]


@pytest.fixture(autouse=True)
def release_milvus_lite():
    yield
    CONNECTIONS.release()


def _sources(names=None):
    return [Source(name=name, data=DOCS[name].encode()) for name in (names or DOCS)]


def catalog_chunk_ids(home, chunkset: str) -> list[int]:
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        return [
            row[0]
            for row in con.execute(
                "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE d.status = 'success' AND c.chunkset = ? ORDER BY c.id",
                [chunkset],
            ).fetchall()
        ]


def milvus_ids(bench, collection: str, config) -> list[int]:
    uri, name = milvus_target(bench.home, collection, Layout.of(config))
    return MilvusCollection.open(uri, name).ids().tolist()


@pytest.fixture
def both(bench, fake_embedder, fake_config):
    """The same documents in a local collection and in a Milvus Lite one."""
    milvus_config = fake_config.with_overrides(MILVUS)
    bench.ingest("local", _sources(), fake_config)
    bench.ingest("lite", _sources(), milvus_config)
    return bench, fake_config, milvus_config


@pytest.mark.parametrize(
    "overrides",
    [
        ["retrieval.mode=bm25"],
        ["retrieval.mode=dense"],
        ["retrieval.mode=hybrid"],
        ["retrieval.mode=hybrid", "mmr.enabled=true"],
    ],
    ids=" ".join,
)
def test_every_mode_ranks_as_the_local_backend_does(both, overrides):
    bench, local_config, milvus_config = both
    for query in QUERIES:
        local = bench.query(query, "local", local_config.with_overrides(overrides))
        lite = bench.query(query, "lite", milvus_config.with_overrides(overrides))
        if "mmr.enabled=true" in overrides:  # MMR reads the stored vectors back from Milvus
            assert not any(detail.get("missing_vector") for detail in lite.stage("mmr").details.values())
        for stage in ("dense", "bm25", "fusion", "mmr", "final"):
            if local.stage(stage) is None:
                assert lite.stage(stage) is None
                continue
            ours, theirs = local.stage(stage).ranked, lite.stage(stage).ranked
            # chunk ids differ between the collections; the documents and their texts do not
            assert [local.chunks.get(c).text for c in ours.ids] == [lite.chunks.get(c).text for c in theirs.ids]
            np.testing.assert_allclose(theirs.scores, ours.scores, rtol=1e-5, atol=1e-6)
    assert bench.snapshot("lite", milvus_config).backend == "milvus"


def test_exact_search_on_milvus_says_what_it_did(both):
    bench, _, milvus_config = both
    trace = bench.query("solar", "lite", milvus_config.with_overrides(["retrieval.mode=dense", "dense.exact=true"]))
    assert (
        "Milvus has no brute-force search: HNSW searched with ef = the number of chunks" in trace.stage("dense").notes
    )


def test_document_and_type_filters_become_milvus_expressions(both):
    bench, _, milvus_config = both
    bread = bench.document("bread.md", "lite")
    config = milvus_config.with_overrides(["retrieval.mode=hybrid", "filters.documents=bread.md"])
    trace = bench.query("water", "lite", config)
    for stage in ("dense", "bm25", "final"):
        assert set(trace.stage(stage).ranked.doc_ids) == {bread.id}
    assert any("pre-filtered" in note for note in trace.stage("bm25").notes)
    typed = bench.query("water", "lite", milvus_config.with_overrides(["filters.doc_types=pdf"]))
    assert len(typed.stage("final").ranked) == 0


def test_ingest_and_delete_keep_milvus_equal_to_the_catalog(bench, fake_embedder, fake_config):
    config = fake_config.with_overrides(MILVUS)
    bench.ingest("kb", _sources(["solar.md", "bread.md"]), config)
    chunkset = Layout.of(config).chunkset_key
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, chunkset)
    bench.ingest("kb", _sources(["rivers.md"]), config)
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, chunkset)
    found = bench.query("river floods", "kb", config.with_overrides(["retrieval.mode=bm25"]))
    assert found.chunks.get(found.stage("final").ranked.ids[0]).text.startswith("# Rivers")
    bench.delete_document("kb", "solar.md")
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, chunkset)
    trace = bench.query("photovoltaic panels", "kb", config.with_overrides(["retrieval.mode=bm25"]))
    assert len(trace.stage("bm25").ranked) == 0
    uri, name = milvus_target(bench.home, "kb", Layout.of(config))
    generation = read_current(layout_dir(bench.home, "kb", Layout.of(config)))["generation"]
    assert MilvusCollection.open(uri, name).recorded_generation() == generation


def test_a_crash_between_catalog_commit_and_push_is_repaired_by_sync(bench, fake_embedder, fake_config, monkeypatch):
    config = fake_config.with_overrides(MILVUS)
    bench.ingest("kb", _sources(["solar.md", "bread.md", "chess.md"]), config)
    chunkset = Layout.of(config).chunkset_key

    import workbench.ingestion.indexing as indexing

    def crash(*_args, **_kwargs):
        raise KeyboardInterrupt("simulated crash before the push")

    monkeypatch.setattr(indexing, "sync_layout", crash)
    with pytest.raises(KeyboardInterrupt):
        bench.ingest("kb", _sources(["rivers.md"]), config)
    monkeypatch.undo()
    # and a deletion the catalog committed but Milvus never heard of
    stored_documents.delete_document(bench.catalog, "kb", "chess.md")
    stale = milvus_ids(bench, "kb", config)
    assert stale != catalog_chunk_ids(bench.home, chunkset)
    embedded_before = len(fake_embedder.embedded_texts)

    results = bench.sync("kb", verify=True)
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, chunkset)
    assert [result.rebuilt for result in results] == [True]
    assert len(fake_embedder.embedded_texts) == embedded_before  # the cache supplied every vector
    trace = bench.query("river floods", "kb", config.with_overrides(["retrieval.mode=bm25"]))
    assert {trace.chunks.get(c).source for c in trace.stage("final").ranked.ids} == {"rivers.md"}


def test_a_dropped_milvus_collection_is_pushed_again_from_the_catalog(bench, fake_embedder, fake_config):
    config = fake_config.with_overrides(MILVUS)
    bench.ingest("kb", _sources(), config)
    uri, name = milvus_target(bench.home, "kb", Layout.of(config))
    MilvusCollection.open(uri, name).drop()
    bench.release_backends()  # a new process: nothing loaded
    trace = bench.query("bake bread", "kb", config.with_overrides(["retrieval.mode=bm25"]))
    assert trace.chunks.get(trace.stage("final").ranked.ids[0]).source == "bread.md"
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, Layout.of(config).chunkset_key)


def test_migrate_to_milvus_and_back_re_embeds_nothing(bench, fake_embedder, fake_config):
    bench.ingest("kb", _sources(), fake_config)
    before = bench.query("solar batteries", "kb", fake_config)
    embedded = len(fake_embedder.embedded_texts)
    local_folder = layout_dir(bench.home, "kb", Layout.of(fake_config))

    moved = bench.migrate_backend("kb", "milvus")
    assert len(fake_embedder.embedded_texts) == embedded
    assert str(local_folder) in moved.dropped and not local_folder.exists()
    config = bench.config_for("kb", overrides=[f"embedding.model={fake_config.embedding.model}"])
    assert config.index.backend == "milvus" and bench.collections()[0].backend.startswith("milvus")
    after = bench.query("solar batteries", "kb", config.with_overrides(["chunking.size=300", "chunking.overlap=30"]))
    assert after.stage("final").ranked.ids == before.stage("final").ranked.ids
    assert milvus_ids(
        bench, "kb", after_config := config.with_overrides(["chunking.size=300", "chunking.overlap=30"])
    ) == catalog_chunk_ids(bench.home, Layout.of(after_config).chunkset_key)

    with pytest.raises(ConfigError, match="already lives there"):
        bench.migrate_backend("kb", "milvus")
    back = bench.migrate_backend("kb", "local")
    assert any(entry.startswith("Milvus collection") for entry in back.dropped)
    assert len(fake_embedder.embedded_texts) == embedded
    again = bench.query("solar batteries", "kb", fake_config)
    assert again.stage("final").ranked.ids == before.stage("final").ranked.ids


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_milvus_is_named_and_other_collections_keep_serving(bench, fake_embedder, fake_config):
    bench.ingest("kb", _sources(), fake_config)
    down = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(MilvusUnavailable) as caught:
        bench.ingest("remote", _sources(["bread.md"]), fake_config.with_overrides([*MILVUS, f"milvus.uri={down}"]))
    assert down in str(caught.value) and "docker compose up -d" in str(caught.value)
    # the documents are in the catalog; the local collection answers as before
    assert [d.source for d in bench.documents("remote")] == ["bread.md"]
    trace = bench.query("solar", "kb", fake_config)
    assert trace.chunks.get(trace.stage("final").ranked.ids[0]).source == "solar.md"
    with pytest.raises(MilvusUnavailable, match=down.replace(".", r"\.")):
        bench.query(
            "bread",
            "remote",
            bench.config_for(
                "remote",
                overrides=[
                    f"embedding.model={fake_config.embedding.model}",
                    "chunking.size=300",
                    "chunking.overlap=30",
                ],
            ),
        )


def test_bad_milvus_settings_are_config_errors(bench, fake_embedder, fake_config):
    with pytest.raises(ConfigError, match=r"milvus.batch_size: 0 is below the minimum 1 \(default 1000\)"):
        fake_config.with_overrides([*MILVUS, "milvus.batch_size=0"])
    with pytest.raises(ConfigError, match="milvus.collection_prefix '1st' may hold only letters"):
        bench.ingest("kb2", _sources(), fake_config.with_overrides([*MILVUS, "milvus.collection_prefix=1st"]))


def test_explain_says_milvus_cannot_break_bm25_down_and_shows_what_it_can(both):
    from workbench.analysis.explain import explain_hit

    bench, local_config, milvus_config = both
    query = "solar panels store batteries"
    explained = {}
    for collection, config in (("local", local_config), ("lite", milvus_config)):
        trace = bench.query(query, collection, config)
        top = trace.stage("bm25").ranked.ids[0]
        explained[collection] = (
            trace,
            explain_hit(
                trace, bench.snapshot(collection, config), top, bench.embed_query(config.embedding.model, query)
            ),
        )
    (_, local), (lite_trace, lite) = explained["local"], explained["lite"]
    assert local.bm25 is not None and lite.bm25 is None
    server = lite.bm25_server
    assert server.backend == "milvus" and "milvus cannot explain its scores" in server.reason
    assert "milvus cannot explain its scores" in " ".join(lite.notes)
    assert (server.stage_rank, server.stage_score) == (1, lite_trace.stage("bm25").ranked.scores[0])
    # Milvus's score is the breakdown's total the local index computes for the same text
    assert server.stage_score == pytest.approx(local.bm25.total, rel=1e-5)
    assert {term: tf for term, _, tf in server.matched} == {t.term: t.tf for t in local.bm25.terms if t.tf}
    assert set(server.unmatched) == {t.term for t in local.bm25.terms if not t.tf}
    assert lite.cosine.cosine == pytest.approx(local.cosine.cosine, abs=1e-6)


@pytest.fixture
def milvus_server(tmp_path):
    """A Milvus server on a free port: Milvus Lite served over gRPC (``python -m milvus_lite server``),
    the same API a standalone Milvus answers on 19530."""
    import subprocess
    import sys

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(tmp_path / "served.db"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert "listening" in server.stdout.readline()
    yield server, f"http://127.0.0.1:{port}"
    server.kill()
    server.wait(timeout=30)


def test_a_milvus_server_gets_only_the_difference_and_a_server_that_dies_is_named(
    bench, fake_embedder, fake_config, milvus_server
):
    server, uri = milvus_server
    config = fake_config.with_overrides([*MILVUS, f"milvus.uri={uri}", "milvus.timeout_s=5"])
    bench.ingest("kb", _sources(["solar.md", "bread.md"]), config)
    chunkset = Layout.of(config).chunkset_key
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, chunkset)
    first = read_current(layout_dir(bench.home, "kb", Layout.of(config)))
    manifest = Snapshot(
        layout_dir(bench.home, "kb", Layout.of(config)) / first["version"], open_snapshot_indexes
    ).manifest
    pushed_first = manifest["pushed"]
    bench.ingest("kb", _sources(["rivers.md"]), config)
    latest = read_current(layout_dir(bench.home, "kb", Layout.of(config)))
    manifest = Snapshot(
        layout_dir(bench.home, "kb", Layout.of(config)) / latest["version"], open_snapshot_indexes
    ).manifest
    rivers = len(bench.chunks_of(bench.document("rivers.md", "kb").id, config))
    assert manifest["pushed"] == rivers and pushed_first == manifest["chunks"] - rivers  # only the new rows
    assert milvus_ids(bench, "kb", config) == catalog_chunk_ids(bench.home, chunkset)
    trace = bench.query("river floods", "kb", config.with_overrides(["retrieval.mode=bm25"]))
    assert trace.chunks.get(trace.stage("final").ranked.ids[0]).source == "rivers.md"

    bench.ingest("local", _sources(["chess.md"]), fake_config)
    server.kill()
    server.wait(timeout=30)
    with pytest.raises(MilvusUnavailable, match=uri.replace(".", r"\.")):
        bench.query("river", "kb", config.with_overrides(["retrieval.mode=dense"]))
    found = bench.query("chess openings", "local", fake_config)
    assert found.chunks.get(found.stage("final").ranked.ids[0]).source == "chess.md"
