"""A study in another process: SIGKILL in the middle of a trial, then --resume; and queries answered meanwhile.

The study runs ``python -m workbench tune`` in a subprocess (with the hashing embedder registered
and each query slowed a little, so a trial lasts long enough to be killed inside). Every time the
study's objective starts evaluating a configuration, the driver appends the configuration's hash
to a ledger (fsynced), so the test can see what was evaluated and how often.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from tests.workbench.tuning_fixtures import TUNE_MODEL
from workbench.tuning.study import INTERRUPTED, POINT, storage_path

REPO = Path(__file__).resolve().parents[3]
STUDY = "background"

DRIVER = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {repo!r})
    from tests.conftest import registered_hashing_embedder
    import workbench.service
    import workbench.tuning.tune as tune_module
    from workbench.evaluation.inputs import config_hash

    ledger = sys.argv[1]
    original_query = workbench.service.Workbench.query

    def slow_query(self, *args, **kwargs):
        # a trial over 42 queries takes most of a second: long enough to be killed inside
        time.sleep(float(os.environ.get("QUERY_DELAY_S", "0.02")))
        return original_query(self, *args, **kwargs)

    workbench.service.Workbench.query = slow_query
    original_objective = tune_module.tuning_objective

    def logged_objective(evaluator, tuning):
        inner = original_objective(evaluator, tuning)

        def objective(config):
            with open(ledger, "a") as handle:
                handle.write(config_hash(config) + "\\n")
                handle.flush()
                os.fsync(handle.fileno())
            return inner(config)

        return objective

    tune_module.tuning_objective = logged_objective
    with registered_hashing_embedder({model!r}):
        from workbench.cli import main

        sys.exit(main(sys.argv[2:]))
""").format(repo=str(REPO), model=TUNE_MODEL)


def tune_arguments(home: Path, *extra: str) -> list[str]:
    return [
        *("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode,mmr.enabled,mmr.lambda"),
        *("--set", "retrieval.mode=dense", "--seed", "1", "--trials", "8", "--study", STUDY, "--home", str(home)),
        *("--holdout", "0.3"),  # one split: each trial's configuration is evaluated once, as the ledger counts
        *extra,
    ]


def start(ledger: Path, arguments: list[str], query_delay_s: float = 0.02) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1", "QUERY_DELAY_S": str(query_delay_s)}
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(ledger), *arguments],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@dataclass(frozen=True)
class Trial:
    number: int
    state: str  # RUNNING, COMPLETE, FAIL
    fingerprint: str | None
    value: float | None
    interrupted: bool


def trials(home: Path) -> list[Trial]:
    """The study's trials, read from its journal (reading takes no lock and writes nothing)."""
    path = storage_path(home, STUDY)
    if not path.exists():
        return []
    storage = JournalStorage(JournalFileBackend(str(path)))
    names = [summary.study_name for summary in storage.get_all_studies()]
    if not names:
        return []
    return [
        Trial(
            t.number,
            t.state.name,
            t.user_attrs[POINT]["fingerprint"] if POINT in t.user_attrs else None,
            t.values[0] if t.values else None,
            bool(t.user_attrs.get(INTERRUPTED)),
        )
        for t in storage.get_all_trials(storage.get_study_id_from_name(names[0]), deepcopy=False)
    ]


def wait_for(condition, process: subprocess.Popen, timeout: float = 240.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        assert process.poll() is None, process.communicate()[1][-3000:]
        time.sleep(0.05)
    raise AssertionError("the study did not get there in time")


def test_sigkill_in_the_middle_of_a_trial_then_resume_keeps_every_completed_trial(lexicon_home, tmp_path):
    home, ledger = lexicon_home.home, tmp_path / "ledger.txt"
    process = start(ledger, tune_arguments(home))

    def mid_trial():  # the fourth configuration has started: the ledger says so before it is evaluated
        started = ledger.read_text().split() if ledger.exists() else []
        return started if len(started) >= 4 else None

    started = wait_for(mid_trial, process)
    process.send_signal(signal.SIGKILL)  # a trial lasts most of a second; this lands well inside it
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    killed = ledger.read_text().split()[-1]
    running = [t for t in trials(home) if t.state == "RUNNING"]
    assert [t.fingerprint for t in running] == [killed]  # killed in the middle of that trial
    before = {t.number: (t.fingerprint, t.value) for t in trials(home) if t.state == "COMPLETE"}
    assert len(before) == len(started) - 1 >= 3

    resumed = start(ledger, tune_arguments(home, "--resume"))
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err[-3000:]
    assert f"{len(before)} kept from before, 1 interrupted re-run" in out
    assert "held-out ndcg@10" in out

    final = trials(home)
    complete = {t.number: (t.fingerprint, t.value) for t in final if t.state == "COMPLETE"}
    assert len(complete) == 8
    assert {number: complete[number] for number in before} == before  # kept as they were
    fingerprints = [fingerprint for fingerprint, _ in complete.values()]
    assert len(set(fingerprints)) == 8 and killed in fingerprints  # none twice; the killed one finished
    interrupted = [t for t in final if t.interrupted]
    assert [(t.fingerprint, t.state) for t in interrupted] == [(killed, "FAIL")]
    evaluations = Counter(ledger.read_text().split())
    # every configuration evaluated once, except the killed one: once when killed, once when re-run
    assert evaluations == Counter({**{fp: 1 for fp in fingerprints}, killed: 2})


def test_a_query_from_another_process_is_answered_while_a_study_runs(lexicon_home, tmp_path, tune_embedder):
    home = lexicon_home.home
    # slower trials (about 4 s each): the study outlasts this process's first query on a busy machine
    process = start(tmp_path / "ledger.txt", tune_arguments(home, "--trials", "30"), query_delay_s=0.1)
    try:
        wait_for(lambda: sum(t.state == "COMPLETE" for t in trials(home)) >= 2, process)
        from workbench.service import Workbench

        bench = Workbench(home)
        config = bench.config_for("lex", overrides=["retrieval.mode=hybrid"])
        trace = bench.query("zq07hx", "lex", config)
        assert process.poll() is None  # the study was still running when the answer came
        top = trace.chunks[trace.final.hits[0].chunk_id]
        assert top.source == "note-07.md"
        presets = [p.name for p in bench.presets()]  # a catalog read too
        assert "default" in presets
        assert process.poll() is None
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # Ctrl-C: the study stops cleanly
        out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "stopped" in out + err and "--resume" in out + err
