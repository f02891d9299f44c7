"""The ``tune`` command on the lexicon home: the plan, progress, the held-out verdict and the saving rule."""

from __future__ import annotations

import json

from workbench.cli import main


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*argv, "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


DENSE_START = ("--set", "retrieval.mode=dense", "--seed", "1")


def test_tune_prints_the_plan_the_verdict_and_saves_a_truly_better_winner(lexicon_home, capsys):
    code, out, err = run_cli(
        capsys,
        lexicon_home.home,
        *("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode,mmr.enabled", *DENSE_START),
        *("--save-preset", "best"),
    )
    assert code == 0, err
    assert "tune lex / codes: 60 scorable queries, ndcg@10 at doc level" in out
    assert "split: tuned on 70%, held out 30%, seed 1" in out
    assert "space: 2 keys, 6 configurations; search: every point (exhaustive)" in out
    assert "cost: layout recursive-100c-0" in out and "nothing to embed" in out
    assert "[holdout, study 1/1] trial 6/6: best ndcg@10" in err
    assert "winner (the study on the tuning queries" in out and "retrieval.mode=bm25" in out
    assert "95% interval [+" in out and "over 18 queries" in out and ": better than your current configuration" in out
    assert "saved preset 'best': retrieval.mode=bm25" in out
    code, out, _ = run_cli(capsys, lexicon_home.home, "presets")
    assert "best" in out and "held-out ndcg@10" in out


def test_tune_saves_nothing_without_a_real_gain_and_force_saves_it_marked(lexicon_home, capsys):
    args = ("tune", "-c", "lex", "--golden", "noise", "--keys", "retrieval.mode,mmr.enabled", *DENSE_START)
    code, out, _ = run_cli(capsys, lexicon_home.home, *args, "--save-preset", "x")
    assert code == 0
    assert "not distinguishable from your current configuration" in out
    assert "nothing saved as 'x'" in out
    code, out, _ = run_cli(capsys, lexicon_home.home, "presets")
    assert "\nx " not in out and not out.startswith("x ")
    code, out, _ = run_cli(capsys, lexicon_home.home, *args, "--resume", "--save-preset", "x", "--force")
    assert code == 0 and "kept from before" in out and "saved preset 'x' (forced)" in out


def test_tune_json_report(lexicon_home, capsys):
    code, out, _ = run_cli(
        capsys,
        lexicon_home.home,
        *("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode", "--folds", "3", "--trials", "3"),
        *(*DENSE_START, "--json"),
    )
    assert code == 0
    report = json.loads(out)
    assert report["split"] == "3-fold nested cross-validation, seed 1"
    assert [s["part"] for s in report["studies"]] == ["fold 1 of 3", "fold 2 of 3", "fold 3 of 3", "all queries"]
    assert report["held_out"]["queries"] == 60 and report["winner"] == {"retrieval.mode": "bm25"}
    assert report["pareto"] and all({"metric", "p95_ms"} <= set(point) for point in report["pareto"])


def test_tune_usage_errors_exit_2_and_name_the_fix(lexicon_home, capsys):
    home = lexicon_home.home
    base = ("tune", "-c", "lex", "--golden", "codes")
    code, _, err = run_cli(capsys, home, *base, "--force")
    assert code == 2 and "--force only applies with --save-preset" in err
    code, _, err = run_cli(capsys, home, *base, "--keys", "bm25.k1")
    assert code == 2 and "--keys: bm25.k1 cannot be tuned by name" in err
    code, _, err = run_cli(capsys, home, *base, "--resume")
    assert code == 2 and "no study 'lex-codes-" in err and "to resume" in err
    code, _, err = run_cli(capsys, home, *base, "--holdout", "1.5")
    assert code == 2 and "--holdout must be between 0 and 1" in err


def test_a_golden_set_of_another_collection_is_refused_naming_the_sets_that_fit(lexicon_home, capsys):
    """Issue 36: the demo's set scored 0.0000 on every trial of another collection, and nothing said why."""
    home = lexicon_home.home
    foreign = [{"id": f"d{i}", "query": f"question {i}", "relevant": [f"scifact-{i}"]} for i in range(3)]
    (home / "golden_sets" / "demo.jsonl").write_text("".join(json.dumps(line) + "\n" for line in foreign), "utf-8")
    for command in ("tune", "eval", "sweep", "check"):
        extra = {
            "sweep": ("--grid", "mmr.enabled=false,true"),
            "check": ("--baseline", "default", "--preset", "default"),
        }
        code, out, err = run_cli(capsys, home, command, "-c", "lex", "--golden", "demo", *extra.get(command, ()))
        assert code == 2, (command, out, err)
        assert (
            "golden set 'demo' does not judge collection 'lex': the collection holds 0 of its 3 judged documents "
            in err
        ), command
        assert "(0%), fewer than the 50% needed; sets that fit: codes, noise" in err, command


def test_progress_lines_off_a_terminal_never_repeat_the_last_trials_line(capsys):
    from workbench.cli.tune import _ProgressPrinter
    from workbench.tuning.study import StudyProgress, TrialRecord
    from workbench.tuning.tune import TuneProgress

    printer = _ProgressPrinter("ndcg@10")
    printer.tty = False
    best = TrialRecord(9, {"retrieval.mode": "bm25"}, 0.5, 2.0, "f", 0.1)

    def event(done: int, message: str = "", record: TrialRecord | None = best) -> TuneProgress:
        return TuneProgress("holdout", 1, 1, StudyProgress("s", done, 10, record, 1.0, None, message), None, message)

    printer(event(0, "starting", None))
    for done in range(1, 10):  # trial 1 is the first best; 2-9 neither improve nor are a tenth
        printer(event(done, record=TrialRecord(0, {}, 0.4, 2.0, "e", 0.1) if done < 5 else best))
    printer(event(10))  # the tenth trial: printed
    printer(event(10, "finished"))  # the study's end: the same line, not printed again
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "[holdout, study 1/1] trial 0/10: no trial yet",
        "[holdout, study 1/1] trial 1/10: best ndcg@10 0.4000 (p95 2.0 ms)",
        "[holdout, study 1/1] trial 5/10: best ndcg@10 0.5000 (p95 2.0 ms)",
        "[holdout, study 1/1] trial 10/10: best ndcg@10 0.5000 (p95 2.0 ms)",
    ]


def test_check_names_the_queries_a_tuned_presets_study_saw_and_can_leave_them_out(lexicon_home, capsys):
    """Issue 36: check compared a tuned preset on all 24 queries, 17 of which it was tuned on, silently."""
    home = lexicon_home.home
    tune = ("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode,mmr.enabled", *DENSE_START)
    code, out, err = run_cli(capsys, home, *tune, "--save-preset", "best")
    assert code == 0 and "saved preset 'best'" in out, err
    check = ("check", "-c", "lex", "--golden", "codes", "--preset", "best", "--baseline", "default", "--no-store")
    code, out, err = run_cli(capsys, home, *check, "--permutations", "500")
    assert code == 0, err
    # 60 scorable queries, 30% (18) held out with seed 1: the study tuned on the other 42
    assert "the candidate's study lex-codes-" in out and "tuned on 42 of the 60 queries compared" in out
    assert "on 60 paired queries" in out
    code, out, err = run_cli(capsys, home, *check, "--permutations", "500", "--held-out-only")
    assert code == 0, err
    assert "compared only on the 18 queries study lex-codes-" in out and "(42 it tuned on left out)" in out
    assert "on 18 paired queries" in out
    code, _, err = run_cli(capsys, home, *check[:-5], "--preset", "default", "--baseline", "default", "--held-out-only")
    assert code == 2 and "--held-out-only needs a preset saved by tune" in err
