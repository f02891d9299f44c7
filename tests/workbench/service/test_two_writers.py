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
#: one parse worker per command: two commands on two cores, and no pool start-up to wait for
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
            [(go, ["ingest", str(folder), "-c", f"c{number}", "--home", str(home), *HASHING]) for number, go in enumerate(gos)],
            MODEL,
        )
        for name, folder in (("a", tmp_path / "a"), ("b", tmp_path / "b"))
    ]
    for number, go in enumerate(gos):
        release(go, number, *writers)
        for writer in writers:
            code, out = writer.wait_round(number)
            assert code == 0, f"round {number}: exit {code}\n{out}"
        check_collection(home, f"c{number}", {"glacier": glaciers, "volcano": volcanoes}, capsys)
    for writer in writers:
        writer.close()
