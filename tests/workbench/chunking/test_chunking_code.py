"""The code strategy: Python cut by its syntax tree, other languages by top-level blocks."""

from pathlib import Path

import pytest

from workbench.chunking import chunk_markdown
from workbench.config import ChunkingConfig
from workbench.ingestion.parsers.code import code_document, notebook_document

MODULE = Path(__file__).resolve().parents[1] / "ingestion" / "data" / "weather_station.py"
CODE = ChunkingConfig(strategy="code", size=1000, overlap=100)


def chunks_of(markdown: str, config: ChunkingConfig = CODE):
    chunks = chunk_markdown(markdown, config)
    for chunk in chunks:
        assert markdown[chunk.start : chunk.end] == chunk.text
    return chunks


def test_python_module_is_cut_per_function_class_and_method_with_qualified_names():
    markdown = code_document(MODULE.read_text(encoding="utf-8"), "python")
    names = [chunk.heading_path for chunk in chunks_of(markdown)]
    assert names == [
        (),  # docstring, imports and the constant
        ("celsius_to_fahrenheit",),
        ("Station",),  # header, docstring and the class attribute, up to the first method
        ("Station.__init__",),
        ("Station.record",),
        ("Station.frost_nights",),
        ("Station.Calibration",),
        ("Station.Calibration.apply",),
        ("dew_point",),
        ("median_reading",),
    ]
    by_name = {chunk.heading_path[-1]: chunk for chunk in chunks_of(markdown) if chunk.heading_path}
    # the comment right above a method belongs to it; so would its decorators
    assert by_name["Station.frost_nights"].text.startswith("# frost matters to farmers")
    assert by_name["dew_point"].text.endswith("return b * gamma / (a - gamma)")
    assert by_name["Station"].text.endswith('unit = "celsius"')


def test_a_long_function_is_cut_further_and_every_piece_keeps_its_name():
    body = "\n".join(f"    total += {i}  # step {i}" for i in range(60))
    markdown = code_document(f"def accumulate():\n    total = 0\n{body}\n    return total\n", "python")
    chunks = chunks_of(markdown, ChunkingConfig(strategy="code", size=300, overlap=0))
    assert len(chunks) > 3
    assert all(chunk.heading_path == ("accumulate",) and len(chunk.text) <= 300 for chunk in chunks)


def test_code_that_does_not_parse_falls_back_to_top_level_blocks():
    markdown = code_document("print 'python two'\n\ndef f():\n    return 1\n", "python")
    chunks = chunks_of(markdown)
    assert [chunk.text for chunk in chunks] == ["print 'python two'", "def f():\n    return 1"]


@pytest.mark.parametrize(
    ("language", "source", "names"),
    [
        (
            "javascript",
            "// adds\nfunction add(a, b) {\n  return a + b;\n}\n\nconst mul = (a, b) => {\n  return a * b;\n};\n",
            [("add",), ("mul",)],
        ),
        (
            "go",
            "package main\n\nfunc Area(w, h int) int {\n\treturn w * h\n}\n\ntype Box struct {\n\tW int\n}\n",
            [(), ("Area",), ("Box",)],
        ),
        (
            "rust",
            'fn main() {\n    println!("hi");\n}\n\npub struct Point {\n    x: i32,\n}\n',
            [("main",), ("Point",)],
        ),
        ("sql", "CREATE TABLE readings (id INT);\n\nSELECT * FROM readings;\n", [("readings",), ()]),
        ("c", "#include <stdio.h>\n\nint square(int x) {\n    return x * x;\n}\n", [(), ("square",)]),
    ],
)
def test_other_languages_split_at_top_level_blocks(language, source, names):
    assert [chunk.heading_path for chunk in chunks_of(code_document(source, language))] == names


def test_prose_around_code_is_chunked_with_its_headings():
    markdown = "# Guide\n\nHow to convert.\n\n```python\ndef convert(x):\n    return x * 2\n```\n\nThe end.\n"
    chunks = chunks_of(markdown)
    assert [(chunk.heading_path, chunk.text) for chunk in chunks] == [
        (("Guide",), "# Guide\n\nHow to convert."),
        (("Guide", "convert"), "def convert(x):\n    return x * 2"),
        (("Guide",), "The end."),
    ]


def test_notebook_cells_become_markdown_and_fenced_code():
    notebook = (
        '{"cells": [{"cell_type": "markdown", "source": ["# Analysis\\n", "Load the data."]},'
        ' {"cell_type": "code", "source": "def load():\\n    return 42", "outputs": [{"text": "42"}]}],'
        ' "metadata": {"kernelspec": {"language": "python"}}}'
    )
    markdown = notebook_document(notebook)
    assert markdown == "# Analysis\nLoad the data.\n\n```python\ndef load():\n    return 42\n```"
    assert [chunk.heading_path for chunk in chunks_of(markdown)] == [("Analysis",), ("Analysis", "load")]
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        notebook_document('{"cells": 3}')
