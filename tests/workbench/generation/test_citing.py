"""A citation names the section and page where the chunk's match lies, not where the chunk starts."""

from __future__ import annotations

from store.text_tokenizer import Bm25Tokenizer
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.preparation import page_at
from workbench.generation.citing import QueryTerms, cuts_inside, matched_place, matched_places
from workbench.ingestion.ingest import Source
from workbench.retrieval.trace import ChunkView

REPORT = (
    "# Technical Report\n\n"
    "## 6. Performance Benchmarks\n\n"
    "| model | latency |\n|---|---|\n| small | 12 ms |\n| large | 31 ms |\n\n"
    "## 7. Visual Components Analysis\n\n"
    "Images are processed by the vision pipeline: each image is resized, normalized and encoded.\n"
)
# page 7 begins at the blank line before "## 7." (the PDF's page break), page 6 holds the table
PAGE_7 = REPORT.index("\n\n## 7.")
PAGES = [0] * 5 + [REPORT.index("## 6.")] + [PAGE_7]  # pages 1-5 empty before the report, as in a long PDF


def chunk_of(markdown: str, start: int, end: int, page_starts: list[int], source: str = "report.pdf") -> ChunkView:
    """The view of ``markdown[start:end]`` with the heading path and page of its start, as ingestion stores them."""
    return ChunkView(
        chunk_id=1,
        doc_id=1,
        source=source,
        external_id=None,
        doc_type="pdf",
        title=source,
        heading_path=HeadingIndex(markdown).path_at(start),
        page=page_at(page_starts, start),
        start=start,
        end=end,
        text=markdown[start:end],
    )


def terms(query: str) -> QueryTerms:
    tokenizer = Bm25Tokenizer()
    return QueryTerms(dict.fromkeys(tokenizer.tokenize(query), 1.0), tokenizer.tokenize)


def test_a_chunk_across_a_section_and_a_page_break_is_cited_where_the_answer_is():
    view = chunk_of(REPORT, REPORT.index("| small"), len(REPORT), PAGES)
    assert (view.heading_path, view.page) == (("Technical Report", "6. Performance Benchmarks"), 6)
    assert cuts_inside(HeadingIndex(REPORT), PAGES, view.start, view.end) == [PAGE_7, REPORT.index("## 7.")]

    place = matched_place(view, terms("How are images processed in the vision pipeline?"), REPORT, PAGES)

    assert place.heading_path == ("Technical Report", "7. Visual Components Analysis")
    assert place.page == 7 and place.moved
    assert REPORT[place.start : place.end].startswith("Images are processed by the vision pipeline")


def test_a_match_in_the_part_the_chunk_starts_with_keeps_its_place():
    view = chunk_of(REPORT, REPORT.index("| small"), len(REPORT), PAGES)
    place = matched_place(view, terms("latency of the large model"), REPORT, PAGES)
    assert (place.heading_path, place.page, place.moved) == (view.heading_path, 6, False)
    assert REPORT[place.start : place.end].startswith("| small")  # a table is one block


def test_no_query_term_in_the_chunk_keeps_its_start():
    view = chunk_of(REPORT, REPORT.index("| small"), len(REPORT), PAGES)
    place = matched_place(view, terms("quarterly revenue"), REPORT, PAGES)
    assert (place.heading_path, place.page, place.start, place.moved) == (view.heading_path, 6, view.start, False)


def test_ties_go_to_the_earlier_sentence():
    view = chunk_of(REPORT, REPORT.index("| small"), len(REPORT), PAGES)
    # "large" is in the table (page 6), "images" in section 7: one term each, the earlier wins
    place = matched_place(view, terms("large images"), REPORT, PAGES)
    assert place.page == 6 and not place.moved


HANDBOOK = (
    "# 检索手册\n\n## 第六章 性能测试\n\n| 模型 | 延迟 |\n|---|---|\n| 小 | 12 毫秒 |\n\n"
    "## 第七章 图像处理\n\n图像先经过视觉流水线：缩放、归一化，再交给编码器生成向量。\n"
)


def test_a_chinese_chunk_is_cited_at_the_section_of_its_match():
    pages = [0, HANDBOOK.index("\n\n## 第七章")]
    view = chunk_of(HANDBOOK, HANDBOOK.index("| 小"), len(HANDBOOK), pages, "手册.pdf")
    assert view.heading_path[-1] == "第六章 性能测试" and view.page == 1
    place = matched_place(view, terms("图像如何经过视觉流水线处理？"), HANDBOOK, pages)
    assert place.heading_path == ("检索手册", "第七章 图像处理") and place.page == 2
    assert HANDBOOK[place.start : place.end].startswith("图像先经过视觉流水线")


def test_a_changed_document_leaves_the_chunk_where_it_started():
    view = chunk_of(REPORT, REPORT.index("| small"), len(REPORT), PAGES)
    place = matched_place(view, terms("vision pipeline"), REPORT.replace("Images", "Photos"), PAGES)
    assert not place.moved and place.page == 6


def test_through_the_workbench_with_the_collection_tokenizer(bench, fake_embedder, fake_config):
    # 80-character pieces: the second holds the table's rows, then the heading of section 7
    config = fake_config.with_overrides(
        ["chunking.strategy=fixed", "chunking.size=80", "chunking.overlap=0", "retrieval.mode=bm25"]
    )
    bench.ingest("docs", [Source(name="report.md", data=REPORT.encode())], config)
    trace = bench.query("Which visual components are analysed?", "docs", config)
    views = trace.final_chunks()
    crossing = [v for v in views if "## 7." in v.text and v.heading_path[-1].startswith("6.")]
    assert crossing, [(v.heading_path, v.text) for v in views]
    read: list[int] = []

    def markdown_of(doc_id: int):
        read.append(doc_id)
        return bench.markdown(doc_id)

    places = matched_places(trace.query, views, bench.snapshot("docs", config), markdown_of)
    place = places[crossing[0].chunk_id]
    assert place.heading_path == ("Technical Report", "7. Visual Components Analysis") and place.page is None
    assert read == [crossing[0].doc_id]  # read once, for the chunk that may cross a boundary
