"""The Embedding map under AppTest: the projection, a query with its hits, top-k, t-SNE."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.service import Workbench

PAGE = "app_pages/embedding_map.py"
QUERY = "How is the reciprocal rank fusion score of a document computed?"


def figure(app) -> dict:
    return json.loads(app.get_by_key("embedding_map_chart").proto.spec)


def traces(app) -> dict[str, dict]:
    return {trace["name"]: trace for trace in figure(app)["data"]}


def test_every_chunk_is_on_the_map_coloured_by_document(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    assert not app.exception, app.exception
    info = Workbench(demo_home).collections()[0]
    data = figure(app)["data"]
    assert len(data) == info.documents == 44  # one trace (colour) per document
    assert sum(len(trace["x"]) for trace in data) == info.chunks
    assert app.caption[0].value.startswith(f"{info.chunks} chunks from 44 documents")
    assert figure(app)["layout"]["xaxis"]["title"]["text"].startswith("PC 1 (")
    assert not app.dataframe  # no query, no hits table


def test_a_query_is_placed_with_its_hits_and_top_k_is_query_time(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    app.text_input(key="map_query").input(QUERY).run()
    assert not app.exception, app.exception
    hits = app.dataframe[0].value
    assert list(hits["rank"]) == list(range(1, 11))
    marked = traces(app)
    assert marked["hits (rank)"]["text"] == [str(rank) for rank in range(1, 11)]
    assert len(marked["query"]["x"]) == 1

    app.number_input(key="map_top_k").set_value(3).run()
    assert list(app.dataframe[0].value["rank"]) == [1, 2, 3]
    assert traces(app)["hits (rank)"]["text"] == ["1", "2", "3"]
    # the top three are the same chunks as before: changing top_k only cuts the list
    assert list(app.dataframe[0].value["document"]) == list(hits["document"][:3])


def test_tsne_on_request(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    app.radio(key="map_method").set_value("tsne").run()
    assert not app.exception, app.exception
    assert figure(app)["layout"]["xaxis"]["title"]["text"] == "t-SNE 1"
