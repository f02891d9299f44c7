"""Citations from ranked hits and their Markdown rendering."""

from __future__ import annotations

from workbench.mcp_server.citations import citations_from_hits, location, quote, render_search
from workbench.mcp_server.schemas import Citation, SearchResult
from workbench.retrieval.ranking import Hit
from workbench.retrieval.trace import ChunkView


def view(chunk_id: int, doc_id: int, source: str, heading_path=(), page=None, text="text") -> ChunkView:
    return ChunkView(
        chunk_id=chunk_id,
        doc_id=doc_id,
        source=source,
        external_id=None,
        doc_type="md",
        title=source,
        heading_path=tuple(heading_path),
        page=page,
        start=0,
        end=len(text),
        text=text,
    )


def test_citations_are_numbered_in_rank_order_and_skip_hits_without_a_view():
    views = {
        11: view(11, 1, "a.md", ("Intro", "Setup"), None, "first passage"),
        22: view(22, 2, "b.pdf", (), 3, "second passage"),
    }
    hits = [Hit(22, 2, 0.9, 1), Hit(99, 9, 0.8, 2), Hit(11, 1, 0.5, 3)]

    citations = citations_from_hits(hits, views)

    assert [c.id for c in citations] == [1, 2]
    assert [(c.chunk_id, c.doc_id, c.source, c.score) for c in citations] == [
        (22, 2, "b.pdf", 0.9),
        (11, 1, "a.md", 0.5),
    ]
    assert citations[0].page == 3 and citations[0].heading_path == []
    assert citations[1].heading_path == ["Intro", "Setup"] and citations[1].text == "first passage"


def test_location_joins_source_headings_and_page():
    cited = Citation(
        id=1, source="guide.pdf", doc_id=4, chunk_id=7, heading_path=["Install", "Linux"], page=12, score=1.0, text="x"
    )
    assert location(cited) == "guide.pdf › Install › Linux, p. 12"
    assert location(cited.model_copy(update={"heading_path": [], "page": None})) == "guide.pdf"


def test_quote_prefixes_every_line_and_keeps_blank_lines_inside_the_quote():
    assert quote("one\n\ntwo\n") == ["> one", ">", "> two"]
    assert quote("") == [">"]


def test_render_search_marks_passages_and_lists_sources():
    citations = [
        Citation(
            id=1,
            source="a.md",
            doc_id=1,
            chunk_id=11,
            heading_path=["Intro"],
            page=None,
            score=0.03125,
            text="Alpha line",
        ),
        Citation(id=2, source="b.md", doc_id=2, chunk_id=22, heading_path=[], page=2, score=0.5, text="Beta"),
    ]
    result = SearchResult(query="alpha", collection="docs", preset="default", mode="hybrid", citations=citations)

    markdown = render_search(result, notes=["rerank fell back"])

    assert markdown.splitlines()[0] == (
        "2 passages for “alpha” (collection `docs`, preset `default`, hybrid retrieval). "
        "Cite a passage by its mark, e.g. [1]."
    )
    assert "[1] **a.md › Intro**\n> Alpha line\n" in markdown
    assert "[2] **b.md, p. 2**\n> Beta\n" in markdown
    sources = markdown.split("Sources:\n", 1)[1]
    assert sources.splitlines()[:2] == [
        "[1] a.md › Intro (doc 1, chunk 11, score 0.0312)",
        "[2] b.md, p. 2 (doc 2, chunk 22, score 0.5000)",
    ]
    assert markdown.rstrip().endswith("_Note: rerank fell back_")


def test_render_search_without_results_says_so():
    result = SearchResult(query="zzz", collection="docs", preset="fast", mode="bm25", citations=[])
    assert render_search(result, ["no chunk shares a term with the query"]) == (
        "No passage matches “zzz” (collection `docs`, preset `fast`, bm25 retrieval).\n"
        "_Note: no chunk shares a term with the query_\n"
    )


def test_a_folded_passage_is_cited_once_with_its_other_places_and_a_crossing_chunk_where_it_matches(
    bench, fake_embedder, fake_config
):
    from tests.workbench.generation.test_citing import REPORT
    from tests.workbench.retrieval.test_retrieval_fold import HANDBOOK
    from workbench.ingestion.ingest import Source
    from workbench.mcp_server.defaults import ServerDefaults
    from workbench.mcp_server.tools import KnowledgeHub

    config = fake_config.with_overrides(["chunking.strategy=fixed", "chunking.size=80", "chunking.overlap=0"])
    bench.ingest("docs", [Source(name="report.md", data=REPORT.encode())], config)
    # one chunk per section: the boilerplate section is a chunk of its own in every chapter
    bench.ingest(
        "book",
        [Source(name="handbook.md", data=HANDBOOK.encode())],
        fake_config.with_value("chunking.strategy", "markdown"),
    )
    hub = KnowledgeHub(bench, ServerDefaults(collection="docs"))

    cited = hub.search_by_keyword("Which visual components are analysed?", 5).result.citations
    crossing = next(c for c in cited if "## 7." in c.text and "| large" in c.text)
    assert crossing.heading_path == ["Technical Report", "7. Visual Components Analysis"]

    output = hub.search_by_keyword("延伸思考 项目 主题", 5, collection="book")
    cited = output.result.citations
    repeated = [c for c in cited if "延伸思考" in c.text]
    assert len(repeated) == 1 and len(cited) == 5
    assert len(repeated[0].also_at) == 9
    chapters = {tuple(p.heading_path[:2]) for p in repeated[0].also_at} | {tuple(repeated[0].heading_path[:2])}
    assert len(chapters) == 10 and all(p.source == "handbook.md" for p in repeated[0].also_at)
    assert "The same passage appears 9 more times; also in: handbook.md › 检索手册 › 第" in output.markdown
