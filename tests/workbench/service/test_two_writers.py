"""Two writers that make one collection at once: whichever makes it, the other joins it.

Each test starts two writers into a collection that does not exist yet, released together: a
writer in another process is the real command (``workbench.cli.main``, what ``python -m
workbench`` runs) in a fresh interpreter that has imported everything, said it is ready and waits
for the go; the writer in this process (the MCP ``ingest`` tool over HTTP, the Documents page's
service calls, the demo load) starts the moment the go is given. Afterwards: every file is in
once, BM25 and the dense route each find a marker word of each writer at the top, and ``sync``
finds nothing to repair.

Writers on the hashing embedder (``tests/conftest.py``; no model to load, so ten rounds of two
processes stay quick) or, where the writer fixes the model itself (the MCP tool and the demo take
the default), on the bundled all-MiniLM-L6-v2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import registered_hashing_embedder

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
MODEL = "two-writers-hashing-embedder"
ROUNDS = 10
#: one parse worker per command: two commands (and their workers) share two cores
ONE_WORKER = ["--set", "ingest.workers=1"]
HASHING = ["--set", f"embedding.model={MODEL}", *ONE_WORKER]

DRIVER = textwrap.dedent("""
    import contextlib, json, sys, time
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    import workbench.cli.documents, workbench.ingestion.ingest, workbench.service  # noqa: F401  before any go
    from tests.conftest import registered_hashing_embedder
    from workbench.cli import main

    model, rounds = sys.argv[1], json.loads(sys.argv[2])
    with registered_hashing_embedder(model) if model else contextlib.nullcontext():
        for ready, go, argv in rounds:
            Path(ready).touch()
            while not Path(go).exists():
                time.sleep(0.001)
            code = main(argv)
            print(f"exit {{code}}", flush=True)
            print(f"exit {{code}}", file=sys.stderr, flush=True)
""").format(repo=str(REPO))


class Writer:
    """Commands in one process of their own, one per round: each waits, imported and ready, for its go.

    One process for every round (rather than one per round) keeps ten rounds quick: an interpreter
    start costs seconds on a loaded machine. Each round is a new collection, so each round is a
    fresh race to make it; ``main``'s return value is the exit status the command would have had."""

    def __init__(self, folder: Path, name: str, rounds: list[tuple[Path, list[str]]], model: str):
        self.readies = [folder / f"{name}-{number}.ready" for number in range(len(rounds))]
        spec = [[str(ready), str(go), argv] for ready, (go, argv) in zip(self.readies, rounds, strict=True)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
        self.err_path = folder / f"{name}.stderr"
        with self.err_path.open("w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-c", DRIVER, model, json.dumps(spec)],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        self._out: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._out.append(line)

    def wait_ready(self, number: int, deadline: float) -> None:
        while not self.readies[number].exists():
            if self.process.poll() is not None:
                pytest.fail(f"the writer ended before its go (exit {self.process.returncode}): {self.stderr()[-3000:]}")
            assert time.monotonic() < deadline, "the writer was not ready within 3 minutes"
            time.sleep(0.005)

    def wait_round(self, number: int) -> tuple[int, str]:
        """The exit status of round ``number``'s command, and everything it printed so far."""
        deadline = time.monotonic() + 600
        while sum(line.startswith("exit ") for line in self._out) <= number:
            if self.process.poll() is not None and not self._reader.is_alive():
                pytest.fail(f"the writer ended in round {number} (exit {self.process.returncode}): {self.stderr()}")
            assert time.monotonic() < deadline, f"round {number} took over 10 minutes"
            time.sleep(0.01)
        codes = [line for line in self._out if line.startswith("exit ")]
        return int(codes[number].split()[1]), "".join(self._out) + self.stderr()[-3000:]

    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> str:
        """Wait for the process to end; its stderr."""
        self.process.wait(timeout=600)
        err = self.stderr()
        assert self.process.returncode == 0, err[-3000:]
        return err


def release(go: Path, number: int, *writers: Writer) -> None:
    """Wait until every writer is ready for round ``number``, then let them all go at once."""
    deadline = time.monotonic() + 180
    for writer in writers:
        writer.wait_ready(number, deadline)
    go.touch()


def write_notes(folder: Path, prefix: str, topic: str, count: int) -> set[str]:
    """``count`` small Markdown notes about ``topic``, each with words of its own; their names."""
    folder.mkdir(parents=True, exist_ok=True)
    names = set()
    for number in range(count):
        name = f"{prefix}-{number}.md"
        (folder / name).write_text(
            f"# The {topic}, note {number}\n\nThis {topic} note {number} is about the {topic}. "
            f"Every {topic} here is described by {prefix} in its own words, number {number}.\n",
            encoding="utf-8",
        )
        names.add(name)
    return names


def check_collection(home: Path, collection: str, files: dict[str, set[str]], capsys) -> None:
    """Every file once, each writer's marker word first on BM25 and on dense, and nothing for ``sync``.

    ``files``: a marker word -> the names of the files its writer ingested."""
    from workbench.cli import main
    from workbench.service import Workbench

    bench = Workbench(home)
    documents = bench.documents(collection)
    assert sorted(doc.source for doc in documents) == sorted(name for names in files.values() for name in names)
    assert {doc.status for doc in documents} == {"success"}
    for marker, names in files.items():
        for mode in ("bm25", "dense"):
            config = bench.config_for(collection, overrides=[f"retrieval.mode={mode}"])
            trace = bench.query(marker, collection, config)
            top = trace.chunks[trace.final.hits[0].chunk_id].source
            assert top in names, (marker, mode, top)
    capsys.readouterr()
    assert main(["sync", "--collection", collection, "--home", str(home)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(": up to date at generation " in line for line in lines), lines


@pytest.fixture
def hashing():
    with registered_hashing_embedder(MODEL) as embedder:
        yield embedder


def test_two_commands_make_one_collection_together_round_after_round(tmp_path, hashing, capsys):
    home = tmp_path / "home"
    glaciers = write_notes(tmp_path / "a", "glacier", "glacier", 3)
    volcanoes = write_notes(tmp_path / "b", "volcano", "volcano", 3)
    gos = [tmp_path / f"go-{number}" for number in range(ROUNDS)]
    writers = [
        Writer(
            tmp_path,
            name,
            [
                (go, ["ingest", str(folder), "-c", f"c{number}", "--home", str(home), *HASHING])
                for number, go in enumerate(gos)
            ],
            MODEL,
        )
        for name, folder in (("a", tmp_path / "a"), ("b", tmp_path / "b"))
    ]
    from workbench.service import Workbench

    for number, go in enumerate(gos):
        started = time.monotonic()
        release(go, number, *writers)
        for writer in writers:
            code, out = writer.wait_round(number)
            assert code == 0, f"round {number}: exit {code}\n{out}"
        names = sorted(doc.source for doc in Workbench(home).documents(f"c{number}"))
        assert names == sorted(glaciers | volcanoes), f"round {number}: {names}"
        print(f"round {number}: {time.monotonic() - started:.1f} s", file=sys.stderr)
    for writer in writers:
        writer.close()
    check_collection(home, f"c{ROUNDS - 1}", {"glacier": glaciers, "volcano": volcanoes}, capsys)


def test_a_command_and_the_mcp_ingest_tool_make_one_collection(tmp_path, capsys):
    """The issue's command as it is (no settings: the bundled model) against the MCP ``ingest`` tool
    of an HTTP server in this process, both into ``kb`` of a new home."""
    from tests.workbench.mcp_server.http_fixtures import connect, http_server

    home, root, go = tmp_path / "home", tmp_path / "inbox", tmp_path / "go"
    glaciers = write_notes(root / "mcp", "glacier", "glacier", 2)
    volcanoes = write_notes(tmp_path / "cli", "volcano", "volcano", 2)
    command = ["ingest", str(tmp_path / "cli"), "-c", "kb", "--home", str(home), *ONE_WORKER]
    writer = Writer(tmp_path, "cli", [(go, command)], "")
    with http_server(home, ingest_root=root) as server, connect(server.url) as client:
        release(go, 0, writer)
        done = client.call_tool("ingest", {"paths": ["mcp"], "collection": "kb"})
    code, out = writer.wait_round(0)
    writer.close()
    assert code == 0, out
    assert not done.is_error, done.content[0].text
    assert done.structured_content["files"] == 2 and "2 new" in done.structured_content["summary"]
    check_collection(home, "kb", {"glacier": glaciers, "volcano": volcanoes}, capsys)


def test_the_documents_page_and_a_command_make_one_collection(tmp_path, hashing, capsys):
    """The New collection form's call and then the Ingest button's (``workbench.ui.new_collection``,
    ``workbench.ui.uploads``: the page is a thin layer over them), uploads in Chinese too."""
    from workbench.config import EmbeddingConfig, WorkbenchConfig
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench
    from workbench.ui.uploads import ingest_uploads

    home, go = tmp_path / "home", tmp_path / "go"
    volcanoes = write_notes(tmp_path / "cli", "volcano", "volcano", 3)
    uploads = {
        "glacier-0.md": "# The glacier\n\nA glacier moves slowly downhill under its own weight.\n",
        "glacier-1.md": "# Glacier ice\n\nGlacier ice forms from snow pressed over many winters.\n",
        "冰川.md": "# 冰川\n\n冰川是由多年积雪压实形成的冰体。冰川在重力作用下沿山谷缓慢流动。\n",
    }
    command = ["ingest", str(tmp_path / "cli"), "-c", "notes", "--home", str(home), *HASHING]
    writer = Writer(tmp_path, "cli", [(go, command)], MODEL)
    release(go, 0, writer)
    bench = Workbench(home)
    _, created = bench.create_or_join_collection("notes", WorkbenchConfig(embedding=EmbeddingConfig(MODEL)))
    sources = [Source(name=name, data=text.encode("utf-8")) for name, text in uploads.items()]
    report = ingest_uploads(bench, "notes", sources, max_file_mb=20)
    code, out = writer.wait_round(0)
    writer.close()
    assert code == 0, out
    assert not report.failures and report.count("ingested") == 3, report.summary()
    check_collection(home, "notes", {"glacier": set(uploads), "volcano": volcanoes}, capsys)
    chinese = bench.query("冰川", "notes", bench.config_for("notes", overrides=["retrieval.mode=bm25"]))
    assert chinese.chunks[chinese.final.hits[0].chunk_id].source == "冰川.md"


def test_loading_the_demo_while_a_command_imports_a_beir_folder_into_it(tmp_path, capsys):
    """``load_demo`` (what the sidebar's Load the demo runs, ``workbench.ui.demo_loader``) on a
    two-document demo, against ``import-beir`` of a two-document BEIR folder into ``demo``, both
    with the bundled model."""
    from workbench.demo import demo_status, load_demo
    from workbench.service import Workbench

    home, go = tmp_path / "home", tmp_path / "go"
    demo_dir = tmp_path / "tiny-demo"
    glaciers = write_notes(demo_dir / "documents", "glacier", "glacier", 2)
    golden = {"id": "g1", "query": "how does a glacier move", "relevant": [{"doc": "glacier-0.md", "grade": 1}]}
    (demo_dir / "golden.jsonl").write_text(json.dumps(golden) + "\n", encoding="utf-8")
    beir = tmp_path / "tiny-beir"
    (beir / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "volcano-a", "title": "The volcano", "text": "Lava flows down the volcano after an eruption."},
        {"_id": "volcano-b", "title": "Volcano ash", "text": "Ash from the volcano falls over the valley."},
    ]
    (beir / "corpus.jsonl").write_text("".join(json.dumps(line) + "\n" for line in corpus), encoding="utf-8")
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "volcano lava"}) + "\n", encoding="utf-8")
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tvolcano-a\t1\n", encoding="utf-8")
    command = ["import-beir", str(beir), "-c", "demo", "--golden", "tiny-beir", "--home", str(home), *ONE_WORKER]
    writer = Writer(tmp_path, "beir", [(go, command)], "")
    release(go, 0, writer)
    loaded = load_demo(Workbench(home), demo_dir=demo_dir)
    code, out = writer.wait_round(0)
    writer.close()
    assert code == 0, out
    assert "golden set 'tiny-beir': 1 queries" in out
    assert not loaded.report.failures and loaded.golden_queries == 1
    check_collection(home, "demo", {"glacier": glaciers, "volcano": {"volcano-a.md", "volcano-b.md"}}, capsys)
    assert demo_status(Workbench(home), demo_dir).complete


@pytest.mark.parametrize("chunking", ["chunking.size=1000", "chunking.size=500"])
def test_an_ingest_beaten_to_the_collection_joins_it_or_names_both_settings(
    tmp_path, hashing, capsys, monkeypatch, chunking
):
    """The race made certain: between this command's look (no ``kb``) and its making of ``kb``,
    a command in another process makes ``kb`` and ingests into it, with the same chunking (1000,
    the default) or another (500)."""
    from workbench.cli import main
    from workbench.service import Workbench
    from workbench.service import workbench as service

    home = tmp_path / "home"
    glaciers = write_notes(tmp_path / "mine", "glacier", "glacier", 2)
    volcanoes = write_notes(tmp_path / "theirs", "volcano", "volcano", 2)
    real_choice = service.choose_runtime

    def beaten(*args, **kwargs):
        go = tmp_path / "go"
        go.touch()
        other = ["ingest", str(tmp_path / "theirs"), "-c", "kb", "--home", str(home), *HASHING, "--set", chunking]
        writer = Writer(tmp_path, "other", [(go, other)], MODEL)
        code, out = writer.wait_round(0)
        writer.close()
        assert code == 0, out
        return real_choice(*args, **kwargs)

    monkeypatch.setattr(service, "choose_runtime", beaten)
    capsys.readouterr()
    code = main(["ingest", str(tmp_path / "mine"), "-c", "kb", "--home", str(home), *HASHING])
    err = capsys.readouterr().err
    names = {doc.source for doc in Workbench(home).documents("kb")}
    if chunking == "chunking.size=1000":
        assert code == 0, err
        monkeypatch.setattr(service, "choose_runtime", real_choice)
        check_collection(home, "kb", {"glacier": glaciers, "volcano": volcanoes}, capsys)
        return
    assert code == 2
    assert names == volcanoes  # nothing of the refused command was written
    assert (
        "error: collection 'kb' already exists with other settings (another writer may have made it moments "
        "ago); they differ in chunking.size. Existing: chunking.size=500, chunking.strategy=recursive, "
        "chunking.overlap=100, "
    ) in err
    assert "Requested: chunking.size=1000, chunking.strategy=recursive, chunking.overlap=100, " in err
    assert f"embedding.model={MODEL}, embedding.runtime=torch" in err
    assert "To add to 'kb', use its settings (chunking.size=500); to keep yours, pick another collection name" in err


def test_joining_compares_the_settings_that_make_the_chunks_and_vectors(tmp_path, hashing):
    from workbench.config import WorkbenchConfig
    from workbench.service import Workbench
    from workbench.service.joining import CollectionSettingsConflict

    bench = Workbench(tmp_path / "home")
    asked = WorkbenchConfig().with_overrides([f"embedding.model={MODEL}"])  # embedding.runtime=auto
    made, created = bench.create_or_join_collection("kb", asked)
    assert created and made.config["embedding.runtime"] == "torch"
    joined, created = bench.create_or_join_collection("kb", asked.with_overrides(["embedding.runtime=torch"]))
    assert (joined.id, created) == (made.id, False)
    # query-time keys are no part of a collection's settings
    assert not bench.create_or_join_collection("kb", asked.with_overrides(["retrieval.top_k=3"]))[1]
    assert not bench.create_or_join_collection("kb", None)[1]  # no settings asked: whatever it has
    with pytest.raises(CollectionSettingsConflict) as refused:
        bench.create_or_join_collection("kb", asked.with_overrides(["bm25.k1=2.0", "chunking.overlap=50"]))
    assert refused.value.differing == ["chunking.overlap", "bm25.k1"]  # in the order settings are declared
    message = str(refused.value)
    assert "they differ in chunking.overlap, bm25.k1. Existing: chunking.overlap=100, bm25.k1=1.2, chunking." in message
    assert "Requested: chunking.overlap=50, bm25.k1=2.0, chunking." in message
    assert "use its settings (chunking.overlap=100 bm25.k1=1.2)" in message
    with pytest.raises(ValueError, match="already exists; pick another name"):
        bench.create_collection("kb", asked)  # making without joining is refused as before
    assert [info.name for info in bench.collections()] == ["kb"]
