"""The chunk sample is reproducible and stratified by language and document; multi-hop tasks
pair a chunk with its most related non-overlapping chunk."""

from __future__ import annotations

from workbench.golden.sampling import SourceChunk, plan_tasks, stratified_order
from workbench.language.scripts import text_language


def chunk(chunk_id, doc, start, text, language="en"):
    return SourceChunk(chunk_id, hash(doc) % 1000, doc, start, start + len(text), text, language)


CHUNKS = [
    chunk(1, "a.md", 0, "walrus option cluster nodes"),
    chunk(2, "a.md", 40, "walrus option restart service"),
    chunk(3, "a.md", 80, "zebra toolkit install pip restart"),
    chunk(4, "b.md", 0, "kestrel scheduler queues cluster jobs"),
    chunk(5, "c.md", 0, "检索 增强 生成", "zh"),
    chunk(6, "c.md", 20, "分块 决定 检索 粒度", "zh"),
]


def test_every_chunk_once_and_the_same_seed_gives_the_same_order():
    order = stratified_order(CHUNKS, seed=1)
    assert sorted(c.chunk_id for c in order) == [1, 2, 3, 4, 5, 6]
    assert [c.chunk_id for c in stratified_order(list(reversed(CHUNKS)), seed=1)] == [c.chunk_id for c in order]
    orders = {tuple(c.chunk_id for c in stratified_order(CHUNKS, seed)) for seed in range(10)}
    assert len(orders) > 1


def test_languages_get_their_share_and_documents_take_turns():
    for seed in range(10):
        order = stratified_order(CHUNKS, seed)
        # en holds 4 of 6 chunks, zh 2: each language's share of every prefix stays within one chunk of it
        for size in range(1, 7):
            zh = sum(c.language == "zh" for c in order[:size])
            assert abs(zh - size * 2 / 6) <= 1
        english = [c.doc for c in order if c.language == "en"]
        assert set(english[:2]) == {"a.md", "b.md"}  # b.md's only chunk comes before a.md's second


def test_kinds_take_turns_and_multi_hop_pairs_the_most_related_chunk():
    tasks = plan_tasks(CHUNKS, 8, ("specific", "multi_hop"), seed=3, tokens=str.split)
    # 6 chunks: the second round shifts the kinds, so chunk and kind never repeat together
    assert [t.kind for t in tasks] == ["specific", "multi_hop"] * 3 + ["multi_hop", "specific"]
    assert [t.position for t in tasks] == list(range(8))
    for task in tasks:
        if task.kind == "multi_hop":
            first, second = task.chunks
            assert first.language == second.language and first.chunk_id != second.chunk_id
            if first.chunk_id == 1:
                assert second.chunk_id == 2  # shares "walrus option"
    assert len({(t.chunks[0].chunk_id, t.kind) for t in tasks}) == 8
    assert [t.key for t in plan_tasks(CHUNKS, 5, ("specific", "multi_hop"), 3, str.split)] == [t.key for t in tasks[:5]]


def test_a_chunk_without_a_related_one_falls_back_to_the_first_kind():
    lonely = [chunk(1, "a.md", 0, "alpha beta"), chunk(2, "b.md", 0, "gamma delta")]
    tasks = plan_tasks(lonely, 2, ("multi_hop", "abstract"), seed=0, tokens=str.split)
    assert tasks[0].kind == "specific" and len(tasks[0].chunks) == 1


def test_chinese_with_code_in_it_is_still_chinese():
    # build.py labels each source chunk with the workbench's one rule, text_language
    assert text_language("入库流程：调用 `POST /api/v1/ingest` 接口上传 `text/plain` 文件。") == "zh"
    assert text_language("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？") == "zh"
    assert text_language("The hybrid route works, and Chinese writers call it 混合.") == "en"
    assert text_language("ひらがなと漢字") == "ja"
