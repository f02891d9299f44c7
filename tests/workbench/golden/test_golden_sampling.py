"""The synthesis plan spreads questions over documents and languages: a named minimum per
document first (the languages interleaved), then each cell's share of the text (D'Hondt); it is
reproducible and a plan for n is a prefix of the plan for more."""

from __future__ import annotations

from workbench.golden.sampling import SourceChunk, cells_of, plan_counts, plan_tasks
from workbench.language.scripts import text_language


def chunk(chunk_id, doc, start, text, language="en"):
    return SourceChunk(chunk_id, hash(doc) % 1000, doc, start, start + len(text), text, language)


def latin(words: str, count: int) -> str:
    """``words`` padded to exactly ``count`` words of Latin text."""
    return " ".join([words, *["x"] * (count - len(words.split()))])


def han(words: str, count: int) -> str:
    """``words`` padded to exactly ``count`` Han characters (``count`` words of text)."""
    return words + "检" * (count - sum("\u4e00" <= c <= "\u9fff" for c in words))


# a.md: 80 words of English in 4 chunks, b.md: 20, c.md: 50 of Chinese in 2 chunks
CHUNKS = [
    chunk(1, "a.md", 0, latin("walrus option cluster nodes", 20)),
    chunk(2, "a.md", 200, latin("walrus option restart service", 20)),
    chunk(3, "a.md", 400, latin("zebra toolkit install pip restart", 20)),
    chunk(4, "a.md", 600, latin("cluster sizing memory", 20)),
    chunk(5, "b.md", 0, latin("kestrel scheduler queues cluster jobs", 20)),
    chunk(6, "c.md", 0, han("检索 增强 生成", 30), "zh"),
    chunk(7, "c.md", 150, han("分块 决定 检索 粒度", 20), "zh"),
]
KINDS = ("specific", "abstract", "unanswerable")


def test_after_the_minimum_each_document_gets_its_share_of_the_text():
    # minimum 1: a, b, c once each; then D'Hondt on 80/20/50 words:
    # a 40 > c 25 > b 10 -> a; a 26.7 > c 25 -> a; c 25 > a 20 -> c; a 20 > c 16.7 -> a;
    # c 16.7 > a 16 -> c; a 16 > c 12.5 -> a; a 13.3 > c 12.5 -> a; c 12.5 > a 11.4 -> c
    tasks = plan_tasks(CHUNKS, 11, KINDS, seed=0, tokens=str.split, min_per_document=1)
    documents, languages = plan_counts(tasks)
    assert documents == {"a.md": 6, "b.md": 1, "c.md": 4}
    assert languages == {"en": 7, "zh": 4}
    # minimum 3: nine questions first, then a 20 > c 12.5 > b 5 -> a; a 16 -> a; a 13.3 -> a; c 12.5 > a 11.4 -> c
    tasks = plan_tasks(CHUNKS, 13, KINDS, seed=0, tokens=str.split, min_per_document=3)
    assert plan_counts(tasks)[0] == {"a.md": 6, "b.md": 3, "c.md": 4}
    # fewer questions than the minimum asks for: the documents take turns
    first = plan_tasks(CHUNKS, 3, ("specific",), seed=5, tokens=str.split)
    assert sorted(t.chunks[0].doc for t in first) == ["a.md", "b.md", "c.md"]


def test_one_english_document_among_many_chinese_ones_is_asked_about_at_once():
    chinese = [
        chunk(10 + 2 * i + part, f"zh-{i:02}.md", 300 * part, han("检索 分块 评估", 150), "zh")
        for i in range(11)
        for part in (0, 1)
    ]
    english = [chunk(50 + i, "spec.md", 1000 * i, latin("interface specification field", 200)) for i in range(6)]
    for seed in range(5):
        tasks = plan_tasks(chinese + english, 36, KINDS, seed, str.split)
        assert {t.language for t in tasks[:2]} == {"en", "zh"}  # the languages interleave
        documents, languages = plan_counts(tasks)
        assert set(documents.values()) == {3} and languages == {"en": 3, "zh": 33}  # 12 documents x 3
        # past the minimum the specification's 1200 words earn it more than a note's 300
        documents, _ = plan_counts(plan_tasks(chinese + english, 90, KINDS, seed, str.split))
        assert documents["spec.md"] > max(n for doc, n in documents.items() if doc != "spec.md")


def test_a_language_without_a_document_of_its_own_still_gets_turns():
    mixed = [
        chunk(1, "handbook.md", 0, han("检索 增强 生成", 300), "zh"),
        chunk(2, "handbook.md", 300, han("检索 分块", 300), "zh"),
        chunk(3, "handbook.md", 600, latin("appendix english glossary", 24)),
    ]
    tasks = plan_tasks(mixed, 4, ("specific",), seed=0, tokens=str.split, min_per_document=2)
    assert [t.language for t in tasks] == ["zh", "en", "zh", "en"]


def test_a_prompt_is_not_repeated_while_another_chunk_is_unasked():
    # one kind: a document of one chunk can serve one question before every chunk has served one
    tasks = plan_tasks(CHUNKS, len(CHUNKS), ("specific",), seed=4, tokens=str.split)
    assert sorted(t.chunks[0].chunk_id for t in tasks) == [c.chunk_id for c in CHUNKS]
    again = plan_tasks(CHUNKS, 2 * len(CHUNKS), ("specific",), seed=4, tokens=str.split)
    assert sorted(t.chunks[0].chunk_id for t in again) == sorted(2 * [c.chunk_id for c in CHUNKS])


def test_the_plan_is_reproducible_and_a_prefix_of_a_longer_one():
    tasks = plan_tasks(CHUNKS, 20, ("specific", "abstract"), seed=3, tokens=str.split)
    again = plan_tasks(list(reversed(CHUNKS)), 20, ("specific", "abstract"), seed=3, tokens=str.split)
    assert [t.key for t in again] == [t.key for t in tasks]
    assert [t.key for t in plan_tasks(CHUNKS, 7, ("specific", "abstract"), 3, str.split)] == [t.key for t in tasks[:7]]
    assert len({tuple(t.key for t in plan_tasks(CHUNKS, 20, ("specific",), seed, str.split)) for seed in range(6)}) > 1
    assert [t.position for t in tasks] == list(range(20))


def test_a_chunk_serves_every_kind_before_any_pair_repeats():
    kinds = ("specific", "abstract", "unanswerable")
    tasks = plan_tasks(CHUNKS, 40, kinds, seed=1, tokens=str.split, min_per_document=0)
    for cell in cells_of(CHUNKS, 1):
        mine = [(t.chunks[0].chunk_id, t.kind) for t in tasks if t.chunks[0].doc == cell.doc]
        rounds = mine[: len(cell.chunks) * len(kinds)]
        assert len(set(rounds)) == len(rounds)


def test_multi_hop_pairs_the_most_related_chunk_of_its_language():
    tasks = plan_tasks(CHUNKS, 30, ("multi_hop",), seed=2, tokens=str.split)
    for task in tasks:
        first, second = task.chunks
        assert first.language == second.language and first.chunk_id != second.chunk_id
        if first.chunk_id == 1:
            assert second.chunk_id == 2  # shares "walrus option"


def test_a_chunk_without_a_related_one_falls_back_to_the_first_kind():
    lonely = [chunk(1, "a.md", 0, "alpha beta"), chunk(2, "b.md", 0, "gamma delta")]
    tasks = plan_tasks(lonely, 2, ("multi_hop", "abstract"), seed=0, tokens=str.split, min_per_document=1)
    assert sorted(t.kind for t in tasks) == ["abstract", "specific"]
    assert all(len(t.chunks) == 1 for t in tasks)


def test_text_is_counted_in_words_so_chinese_weighs_what_it_says():
    from workbench.golden.sampling import text_size

    assert text_size("检索增强生成") == 6  # a CJK character is about a word
    assert text_size("Hybrid retrieval works.") == 3  # three words; punctuation does not count
    assert text_size("混合检索 hybrid 2024") == 4 + 1  # digits are no word
    # the same sentence in both languages weighs about the same, where characters differ threefold
    english, chinese = "Chunks that are too large dilute the relevant content.", "块太大会稀释相关内容。"
    assert len(english) > 4 * len(chinese) and 0.8 < text_size(english) / text_size(chinese) < 1.2


def test_chinese_with_code_in_it_is_still_chinese():
    assert text_language("入库流程：调用 `POST /api/v1/ingest` 接口上传 `text/plain` 文件。") == "zh"
    assert text_language("The hybrid route is described in the design notes of this chapter.") == "en"
    assert text_language("ひらがなと漢字") == "ja"
