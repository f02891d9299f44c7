"""Folding near-identical passages: one place in the list, the repeats listed as its places."""

from __future__ import annotations

import pytest

from workbench.config import WorkbenchConfig
from workbench.ingestion.ingest import Source
from workbench.retrieval.fold import fold, folded_places, jaccard, normalized, shingles
from workbench.retrieval.ranking import RankedList

BOILERPLATE = (
    "### 延伸思考\n\n请结合本章内容，思考检索增强生成在你的项目中如何落地：先列出你的文档类型和常见问题，"
    "再比较不同的分块大小与检索模式对答案质量的影响，最后把遇到的问题和解决办法记录下来，"
    "作为团队知识库的一部分，供后续章节的练习使用。"
)
ENGLISH = "Further reading: compare the retrieval settings of this chapter with your own project notes."


def ranked(ids, docs=None):
    return RankedList("rerank", tuple(ids), tuple(docs or [i // 10 for i in ids]), tuple(1.0 / (i + 1) for i in ids))


def test_normalizing_takes_out_case_width_markup_and_whitespace():
    assert normalized("## Further  Reading\n\n*Compare* ＡＢＣ") == "further reading compare abc"
    assert normalized("### 延伸思考\n请思考。") == normalized("#### 延伸思考 请思考。")


def test_jaccard_of_shingles_by_hand():
    # "abcdef" -> abcde, bcdef; "abcdeg" -> abcde, bcdeg: 1 shared of 3 distinct
    assert jaccard(shingles("abcdef"), shingles("abcdeg")) == pytest.approx(1 / 3)
    assert jaccard(shingles("abc"), shingles("abc")) == 1.0  # shorter than a shingle: the whole text
    assert len(shingles("abcdefgh")) == 4


def test_repeats_fold_into_the_first_and_the_next_distinct_hits_move_up():
    texts = {i: f"{BOILERPLATE}（第{i}章）" for i in range(10)}  # ten chapters' copies, chapter number apart
    texts |= {100 + i: f"distinct passage number {i} about something else entirely" for i in range(5)}
    order = [0, 1, 100, 2, 3, 4, 5, 6, 7, 8, 9, 101, 102, 103, 104]

    folding = fold(ranked(order), texts.__getitem__, top_k=4, threshold=0.9)

    assert folding.ranked.ids[:4] == (0, 100, 101, 102)
    assert folding.ranked.ids[4:] == (103, 104)  # not walked: follows unchanged
    assert [chunk_id for chunk_id, _ in folding.places[0]] == list(range(1, 10))
    assert all(overlap >= 0.9 for _, overlap in folding.places[0])
    assert folding.walked == 13
    details = folding.details()
    assert details[0] == {"places": list(range(1, 10))}
    assert details[5]["folded_into"] == 0
    assert folding.ranked.scores[0] == 1.0  # the kept hit keeps its own score


def test_exact_copies_fold_at_threshold_one_and_different_passages_never_fold():
    texts = {1: ENGLISH, 2: "  " + ENGLISH.upper() + "\n", 3: ENGLISH.replace("chapter", "section"), 4: "Other."}
    folding = fold(ranked([1, 2, 3, 4]), texts.__getitem__, top_k=10, threshold=1.0)
    assert folding.ranked.ids == (1, 3, 4)
    assert folding.places == {1: ((2, 1.0),)}
    # "chapter" -> "section": 7 changed letters touch 7 + 4 of the 88 windows of 5 characters on
    # each side, so 77 are shared out of 88 + 88 - 77 = 99: J = 7/9
    assert jaccard(shingles(normalized(texts[1])), shingles(normalized(texts[3]))) == pytest.approx(7 / 9)
    assert fold(ranked([1, 2, 3, 4]), texts.__getitem__, top_k=10, threshold=0.8).ranked.ids == (1, 3, 4)
    # one letter changed ("chaptex"): 5 windows on each side, 83 shared of 93: J = 0.892
    texts[3] = ENGLISH.replace("chapter", "chaptex")
    assert jaccard(shingles(normalized(texts[1])), shingles(normalized(texts[3]))) == pytest.approx(83 / 93)
    assert fold(ranked([1, 2, 3, 4]), texts.__getitem__, top_k=10, threshold=0.9).ranked.ids == (1, 3, 4)
    folding = fold(ranked([1, 2, 3, 4]), texts.__getitem__, top_k=10, threshold=0.85)
    assert folding.ranked.ids == (1, 4) and folding.places[1][1] == (3, pytest.approx(83 / 93))


def test_the_candidate_search_finds_what_comparing_every_pair_finds():
    import random

    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "检索", "生成", "分块", "epsilon"]
    base = [" ".join(rng.choice(words) for _ in range(40)) for _ in range(6)]
    texts = {}
    for i in range(30):
        text = list(base[i % 6])
        for _ in range(rng.randrange(0, 6)):  # a few edited characters
            text[rng.randrange(len(text))] = rng.choice("xyz")
        texts[i] = "".join(text)
    folding = fold(ranked(range(30)), texts.__getitem__, top_k=30, threshold=0.85)
    # brute force: each hit against every hit kept before it, best overlap wins
    kept: list[int] = []
    places: dict[int, list[int]] = {}
    for i in range(30):
        overlaps = [(jaccard(shingles(normalized(texts[i])), shingles(normalized(texts[k]))), k) for k in kept]
        best = max((o for o in overlaps if o[0] >= 0.85), default=None, key=lambda o: o[0])
        if best is None:
            kept.append(i)
        else:
            places.setdefault(best[1], []).append(i)
    assert list(folding.ranked.ids) == kept
    assert {k: [c for c, _ in v] for k, v in folding.places.items()} == places


def test_bad_settings_name_the_key():
    with pytest.raises(ValueError, match="fold.threshold"):
        fold(ranked([1]), str, top_k=1, threshold=0.0)
    with pytest.raises(ValueError, match="retrieval.top_k"):
        fold(ranked([1]), str, top_k=0, threshold=0.9)


HANDBOOK = "# 检索手册\n\n" + "".join(
    f"## 第{n}章 主题{n}\n\n本章讲解第{n}个主题：{topic}的原理、参数和常见错误。\n\n{BOILERPLATE}\n\n"
    for n, topic in enumerate(["分词", "向量", "融合", "重排", "分块", "评估", "缓存", "索引", "日志", "部署"], 1)
)


@pytest.fixture
def handbook(bench, fake_embedder, fake_config):
    config = fake_config.with_overrides(["chunking.strategy=markdown", "retrieval.mode=bm25", "retrieval.top_k=5"])
    bench.ingest("book", [Source(name="handbook.md", data=HANDBOOK.encode())], config)
    return bench, config


def test_a_paragraph_repeated_in_ten_sections_shows_once_with_its_places(handbook):
    bench, config = handbook
    trace = bench.query("延伸思考 检索增强生成 项目", "book", config)
    final = trace.final_chunks()
    repeats = [view for view in final if "延伸思考" in view.text]
    assert len(repeats) == 1 and len(final) == 5
    places = folded_places(trace)[repeats[0].chunk_id]
    assert len(places) == 9
    chapters = {trace.chunks[c].heading_path[-2] for c in (repeats[0].chunk_id, *places)}
    assert len(chapters) == 10  # every chapter's copy, each at its own section
    assert trace.stage_names() == ["bm25", "final"]  # folding is part of making the final list
    # the places the repeats left go to the next distinct hits, in the order BM25 ranked them
    distinct = [c for c in trace.stage("bm25").ranked.ids if "延伸思考" not in trace.chunks[c].text]
    assert [v.chunk_id for v in final if "延伸思考" not in v.text] == distinct[:4]
    assert trace.stage("final").notes == ("folded 9 near-identical chunks into 1 hits that list their other places",)
    off = bench.query("延伸思考 检索增强生成 项目", "book", config.with_value("fold.enabled", False))
    assert sum("延伸思考" in view.text for view in off.final_chunks()) == 5  # what the user saw
    assert off.stage("final").details == {} and not off.stage("final").notes


def test_fold_is_on_by_default():
    assert WorkbenchConfig().fold.enabled and WorkbenchConfig().fold.threshold == 0.9


def _reference_fold(ids: list[int], text_of, top_k: int, threshold: float) -> tuple[tuple[int, ...], dict]:
    """Folding as first written: every signature computed afresh, (n, 64) min-hashes reduced by column."""
    import numpy as np

    from workbench.retrieval import fold as module

    kept: list[tuple[int, np.ndarray]] = []
    by_text: dict[str, int] = {}
    by_band: dict[tuple[int, bytes], list[int]] = {}
    places: dict[int, list[tuple[int, float]]] = {}
    walked = 0
    for position, chunk_id in enumerate(ids):
        if len(kept) == top_k:
            break
        walked += 1
        text = normalized(text_of(chunk_id))
        if text in by_text:
            places.setdefault(ids[kept[by_text[text]][0]], []).append((chunk_id, 1.0))
            continue
        own = shingles(text)
        with np.errstate(over="ignore"):
            signature = (own[:, None] * module._MULTIPLIERS + module._OFFSETS).min(axis=0)
        keys = [(band, signature[band * 4 : (band + 1) * 4].tobytes()) for band in range(16)]
        best, best_overlap = None, 0.0
        for index in sorted({index for key in keys for index in by_band.get(key, ())}):
            overlap = jaccard(own, kept[index][1])
            if overlap >= threshold and overlap > best_overlap:
                best, best_overlap = index, overlap
        if best is not None:
            places.setdefault(ids[kept[best][0]], []).append((chunk_id, best_overlap))
            continue
        by_text[text] = len(kept)
        for key in keys:
            by_band.setdefault(key, []).append(len(kept))
        kept.append((position, own))
    order = [position for position, _ in kept] + list(range(walked, len(ids)))
    return tuple(ids[i] for i in order), {k: tuple(v) for k, v in places.items()}


def test_signatures_kept_per_text_and_reduced_by_row_fold_exactly_as_first_written():
    import random
    from pathlib import Path

    from workbench.retrieval import fold as module

    abstracts = sorted((Path(__file__).resolve().parents[3] / "demo" / "documents").glob("scifact-*.md"))
    texts = {i: path.read_text(encoding="utf-8")[:1200] for i, path in enumerate(abstracts)}
    rng = random.Random(48)
    # near repeats at every distance from the threshold: a few characters changed, more, a lot
    for i in range(len(abstracts)):
        edits, text = rng.choice([1, 3, 10, 40, 200]), list(texts[i])
        for _ in range(edits):
            text[rng.randrange(len(text))] = rng.choice("xyz")
        texts[1000 + i] = "".join(text)
    texts |= {2000 + i: f"{BOILERPLATE}（第{i}章）" for i in range(20)}
    texts |= {3000: "", 3001: "ab", 3002: "  ", 3003: ENGLISH.upper()}
    ids = list(texts)
    module.forget_signatures()
    folded: dict[float, int] = {}
    for trial in range(4):  # the first trials fill the cache, the later ones read from it
        rng.shuffle(ids)
        for top_k, threshold in ((10, 0.9), (60, 0.8), (len(ids), 0.95), (len(ids), 1.0)):
            folding = fold(ranked(ids, [0] * len(ids)), texts.__getitem__, top_k=top_k, threshold=threshold)
            order, places = _reference_fold(ids, texts.__getitem__, top_k, threshold)
            assert folding.ranked.ids == order, (trial, top_k, threshold)
            assert dict(folding.places) == places, (trial, top_k, threshold)
            if top_k == len(ids):
                folded[threshold] = sum(len(repeats) for repeats in places.values())
    assert module._signature.cache_info().hits > 0
    # the comparison covers folding: near repeats at 0.95, and at 1.0 only "" and "  " (equal once normalized)
    assert folded[0.95] >= 10 and folded[1.0] == 1
