"""Plotly figures: escaped hover and legend text, the token histogram against the model's limit."""

from __future__ import annotations

from workbench.analysis.embedding_map import EmbeddingMap, MapPoint
from workbench.ui.figures import embedding_figure, hover_text, token_histogram


def test_hover_text_is_escaped_wrapped_and_shortened():
    assert hover_text("<img src=x> & more", width=10) == "&lt;img<br>src=x&gt; &amp;<br>more"
    assert hover_text("word " * 200).endswith("…")
    assert hover_text("") == ""


def test_token_histogram_splits_chunks_at_the_limit():
    figure = token_histogram([100, 200, 300, 400], max_tokens=256)
    within, over = figure.data
    assert list(within.x) == [100, 200] and list(over.x) == [300, 400]
    assert figure.layout.shapes[0].x0 == 256
    assert len(token_histogram([10, 20], max_tokens=256).data) == 1


def test_embedding_figure_escapes_names_and_orders_hits_by_rank():
    points = (
        MapPoint(1, 10, "<b>Doc</b>", "doc.md", "first <i>chunk</i>", 0.0, 0.0),
        MapPoint(2, 10, "<b>Doc</b>", "doc.md", "second", 1.0, 1.0),
        MapPoint(3, 20, "Other", "other.md", "third", 2.0, 0.5),
    )
    figure = embedding_figure(EmbeddingMap("pca", points, (0.5, 0.5), (0.6, 0.3)), {3: 1, 1: 2}, "a <query>")
    names = [trace.name for trace in figure.data]
    assert names == ["&lt;b&gt;Doc&lt;/b&gt;", "Other", "hits (rank)", "query"]
    hits = figure.data[2]
    assert list(hits.text) == ["1", "2"] and list(hits.x) == [2.0, 0.0]
    assert figure.data[0].customdata[0][1] == "first &lt;i&gt;chunk&lt;/i&gt;"
    assert figure.data[3].customdata[0][0] == "a &lt;query&gt;"
    assert figure.layout.xaxis.title.text == "PC 1 (60% of variance)"


def test_embedding_figure_folds_documents_past_the_trace_limit_into_one_grey_trace():
    from workbench.ui.figures import MAP_DOCUMENT_TRACES

    documents = MAP_DOCUMENT_TRACES + 5
    # document 0 has the most points, so it keeps its colour; the smallest share the grey trace
    points = tuple(
        MapPoint(doc * 10 + n, doc, f"d{doc}", f"d{doc}.md", "t", float(doc), float(n))
        for doc in range(documents)
        for n in range(documents - doc)
    )
    figure = embedding_figure(EmbeddingMap("pca", points, None, (0.5, 0.5)))
    assert len(figure.data) == MAP_DOCUMENT_TRACES
    assert figure.data[0].name == "d0" and figure.data[-1].name == "6 other documents"
    assert len(figure.data[-1].x) == sum(documents - doc for doc in range(MAP_DOCUMENT_TRACES - 1, documents))
