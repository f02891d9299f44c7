"""``check``: a regression gate for CI. Does a preset rank significantly worse than a baseline?

The candidate and the baseline are scored on the same golden queries and paired by query id. The
gate fails when both hold:

- the mean difference (candidate - baseline) is a drop larger than ``max_drop``, and
- the paired randomization test (``workbench.evaluation.compare``) gives p < ``alpha``: a drop
  that size is unlikely if the two were interchangeable.

A drop within ``max_drop``, or one the test cannot tell from chance, passes. The report gives the
mean difference with its paired bootstrap 95% interval and the p-value either way.

A stored run can be the baseline only if it measured the same thing: the same collection, level
and metric, the same golden set content and the same corpus (``EvaluationResult.inputs``);
``baseline_problems`` names whatever changed, and ``check`` then exits 2 instead of comparing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from xml.etree import ElementTree

from workbench.evaluation.compare import DEFAULT_PERMUTATIONS, paired_randomization_test
from workbench.evaluation.inputs import CORPUS
from workbench.evaluation.intervals import DEFAULT_RESAMPLES, Interval, paired_bootstrap_interval
from workbench.evaluation.power import Power, power_of
from workbench.evaluation.runner import EvaluationResult
from workbench.tuning.verdict import pair

DEFAULT_MAX_DROP = 0.01
DEFAULT_ALPHA = 0.05
PASS, FAIL = "pass", "fail"


def baseline_problems(
    run: EvaluationResult,
    *,
    collection: str,
    golden_name: str,
    golden_hash: str,
    golden_queries: int,
    level: str,
    metric: str,
    corpus: Mapping[str, object],
) -> list[str]:
    """Why stored run ``run`` cannot be the baseline now (empty when it can), each naming the change."""
    name = f"run {run.run_id}"
    problems = []
    if run.collection != collection:
        problems.append(f"{name} measured collection {run.collection!r}, not {collection!r}")
    if run.level != level:
        problems.append(f"{name} was scored at level {run.level}; pass --level {run.level} or evaluate again")
    if metric not in run.metrics:
        problems.append(f"{name} has no {metric}; it has {', '.join(run.metrics) or 'no metrics'}")
    if run.golden != golden_name:
        problems.append(f"{name} was scored on golden set {run.golden!r}, not {golden_name!r}")
    elif not run.golden_hash:
        problems.append(
            f"{name} was stored before runs recorded their golden set's content; evaluate the baseline again"
        )
    elif run.golden_hash != golden_hash:
        problems.append(
            f"the golden set {golden_name!r} changed since {name}: content hash {run.golden_hash} then "
            f"({len(run.per_query)} queries scored), {golden_hash} now ({golden_queries} queries)"
        )
    then = run.inputs.get(CORPUS) if run.inputs else None
    if not isinstance(then, Mapping):
        problems.append(f"{name} was stored before runs recorded their corpus; evaluate the baseline again")
    elif then.get("hash") != corpus.get("hash"):
        problems.append(
            f"the corpus of collection {collection!r} changed since {name}: {then.get('documents')} documents "
            f"(hash {then.get('hash')}) then, {corpus.get('documents')} documents (hash {corpus.get('hash')}) now"
        )
    return problems


@dataclass(frozen=True)
class GateResult:
    metric: str
    queries: int
    baseline: float
    candidate: float
    interval: Interval
    p_value: float
    permutations: int
    max_drop: float
    alpha: float
    #: how many queries a difference would need to show (``workbench.evaluation.power``)
    power: Power | None = None

    @property
    def difference(self) -> float:
        return self.candidate - self.baseline

    @property
    def failed(self) -> bool:
        return -self.difference > self.max_drop and self.p_value < self.alpha

    @property
    def status(self) -> str:
        return FAIL if self.failed else PASS

    def describe(self) -> str:
        return (
            f"{self.metric} on {self.queries} paired queries: baseline {self.baseline:.4f}, candidate "
            f"{self.candidate:.4f}, difference {self.difference:+.4f} (95% interval {self.interval.describe()}), "
            f"p = {self.p_value:.4f} (paired randomization, {self.permutations} permutations)"
        )

    def power_note(self) -> str:
        """Said when the queries are few or the interval covers zero."""
        if self.power is None or not (self.power.few or self.interval.covers(0.0)):
            return ""
        return self.power.note()

    def reason(self) -> str:
        drop = -self.difference
        if self.failed:
            return (
                f"FAIL: a drop of {drop:.4f} is larger than --max-drop {self.max_drop:g} and significant "
                f"(p = {self.p_value:.4f} < alpha {self.alpha:g})"
            )
        if drop <= self.max_drop:
            return f"pass: no drop larger than --max-drop {self.max_drop:g}"
        return (
            f"pass: the drop of {drop:.4f} is larger than --max-drop {self.max_drop:g} but not significant "
            f"(p = {self.p_value:.4f} >= alpha {self.alpha:g})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "metric": self.metric,
            "queries": self.queries,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "difference": self.difference,
            "interval": self.interval.to_dict(),
            "p_value": self.p_value,
            "permutations": self.permutations,
            "max_drop": self.max_drop,
            "alpha": self.alpha,
            "power": self.power.to_dict() if self.power else None,
            "power_note": self.power_note(),
            "reason": self.reason(),
        }


def gate(
    metric: str,
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    max_drop: float = DEFAULT_MAX_DROP,
    alpha: float = DEFAULT_ALPHA,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
) -> GateResult:
    """Pair per-query scores (query id -> metric) and decide (see the module doc)."""
    if max_drop < 0:
        raise ValueError(f"--max-drop must be 0 or more, got {max_drop:g}")
    if not 0 < alpha < 1:
        raise ValueError(f"--alpha must be between 0 and 1, got {alpha:g}")
    paired = pair(baseline, candidate)
    if not paired.query_ids:
        raise ValueError("the baseline and the candidate share no scored query")
    test = paired_randomization_test(list(paired.base), list(paired.winner), permutations, seed)
    interval = paired_bootstrap_interval(paired.differences, DEFAULT_RESAMPLES, seed)
    count = len(paired.query_ids)
    return GateResult(
        metric,
        count,
        sum(paired.base) / count,
        sum(paired.winner) / count,
        interval,
        test.p_value,
        permutations,
        max_drop,
        alpha,
        power_of(paired.differences),
    )


def junit_xml(
    *,
    name: str,
    result: GateResult | None,
    elapsed_s: float,
    properties: Mapping[str, object],
    error: str | None = None,
) -> str:
    """A JUnit XML report with one test case: a failure for a significant drop, an error for bad input."""
    suites = ElementTree.Element("testsuites")
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name="retrieval-check",
        tests="1",
        failures="1" if result is not None and result.failed else "0",
        errors="1" if error else "0",
        time=f"{elapsed_s:.3f}",
    )
    props = ElementTree.SubElement(suite, "properties")
    for key, value in properties.items():
        ElementTree.SubElement(props, "property", name=str(key), value=str(value))
    case = ElementTree.SubElement(suite, "testcase", classname="retrieval-check", name=name, time=f"{elapsed_s:.3f}")
    if error:
        ElementTree.SubElement(case, "error", message=error, type="InputError").text = error
    elif result is not None:
        if result.failed:
            failure = ElementTree.SubElement(case, "failure", message=result.reason(), type="SignificantDrop")
            failure.text = result.describe()
        ElementTree.SubElement(case, "system-out").text = f"{result.describe()}\n{result.reason()}"
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
