"""``golden judge --llm``: the LLM grades each (query, chunk) pair of a pool 0-3, with a reason.

The prompt (``JUDGE_SYSTEM``, version ``PROMPT_VERSION``) gives the grade scale of the Judging
page, the query and the chunk's text as data blocks; the reply must be exactly
``{"grade": 0-3, "reason": "one line"}`` (``parse_judge_reply``), anything else is a reject with
its reason and records nothing. Grades are recorded through ``workbench.golden.judging`` under
the judge ``model@prompt-hash`` (``judging.model_judge``), so a changed prompt never mixes with
the old one's grades.

The chunk's text is read from its document's Markdown at the pooled span, so a pool survives
re-chunking. Pairs this judge already graded are skipped, and replies are cached: a second run
makes no call. ``--max-calls`` bounds the endpoint calls: pairs go out in batches no larger
than what is left of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from store.catalog import Catalog
from workbench.facade import WorkbenchFacade
from workbench.golden import judging
from workbench.golden.judging import GRADE_MEANINGS, PoolItem
from workbench.llm.client import LlmClient, LlmRequest, LlmUnavailable
from workbench.llm.prompt_data import data_block, with_data_rule
from workbench.llm.replies import parse_json_reply

PROMPT_VERSION = "golden.judge@1"
JUDGE_SYSTEM = with_data_rule(
    "You grade how well a passage answers a search query, for a relevance test set. Grades: "
    + "; ".join(f"{grade} = {meaning}" for grade, meaning in GRADE_MEANINGS.items())
    + ". Judge only the passage given. Reply with exactly one JSON object and nothing else: "
    '{"grade": <0, 1, 2 or 3>, "reason": "<one short line saying why>"}'
)
MAX_REASON_CHARS = 200
#: replies the estimate allows for a grade and its reason
COMPLETION_TOKENS_ESTIMATE = 30
REPLY_PROBLEMS = ("reply rejected", "unusable reply")
#: pairs asked and recorded together: one cache lookup, one cache write, one judgements write
BATCH_SIZE = 32


def judge_name(model: str) -> str:
    return judging.model_judge(model, f"{PROMPT_VERSION}\n{JUDGE_SYSTEM}")


def parse_judge_reply(reply: str) -> tuple[int, str]:
    """``(grade, reason)`` from ``{"grade": 2, "reason": "..."}``; ``ValueError`` says what is wrong."""
    data = parse_json_reply(reply, ("grade", "reason"))
    grade, reason = data["grade"], data["reason"]
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise ValueError(f'"grade" must be a whole number 0-3, got {grade!r}')
    if grade not in judging.GRADES:
        raise ValueError(f"grade {grade} is outside 0-3")
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError('"reason" must be a non-empty line of text')
    return grade, " ".join(reason.split())[:MAX_REASON_CHARS]


def judge_request(query: str, passage: str, label: str, max_tokens: int) -> LlmRequest:
    user = f"{data_block(query, 'query')}\n\n{data_block(passage, 'passage')}\n\nReply with the JSON object only."
    return LlmRequest.of("golden.judge", PROMPT_VERSION, JUDGE_SYSTEM, user, max_tokens=max_tokens, label=label)


@dataclass
class JudgeReport:
    pool: str
    judge: str
    pairs: int  # pooled (query, chunk) pairs
    already: int  # judged by this judge before this run
    bound: int  # the most endpoint calls this run may make
    recorded: int = 0
    endpoint_calls: int = 0
    cached_calls: int = 0
    tokens: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # reason -> count
    grades: Counter[int] = field(default_factory=Counter)
    stopped: str = ""  # why it stopped early (max calls reached, the endpoint failed)

    def describe(self) -> str:
        grades = ", ".join(f"{g}: {self.grades.get(g, 0)}" for g in judging.GRADES)
        rejects = sum(self.rejected.values())
        return (
            f"pool {self.pool!r}: recorded {self.recorded} grades ({grades}), {rejects} replies rejected, "
            f"{self.already} pairs judged before; endpoint calls {self.endpoint_calls}, cached "
            f"{self.cached_calls}, tokens {self.tokens:,}"
        )


def plan(
    catalog: Catalog, client: LlmClient, pool: str, max_calls: int | None
) -> tuple[judging.PoolRow, list[PoolItem], JudgeReport]:
    """The pool, the pairs still to grade and the report with its call bound; nothing is asked."""
    if not client.available:
        raise LlmUnavailable(client.unavailable_reason("golden judge --llm"))
    if max_calls is not None and max_calls < 0:
        raise ValueError(f"--max-calls must be 0 or more, got {max_calls}")
    row, items = judging.load_pool(catalog, pool)
    judge = judge_name(client.model)
    done = {(j.query_id, j.chunk_id) for j in judging.judgements(catalog, row.name, judge)}
    todo = [item for item in items if (item.query_id, item.chunk_id) not in done]
    bound = len(todo) if max_calls is None else min(len(todo), max_calls)
    return row, todo, JudgeReport(row.name, judge, len(items), len(items) - len(todo), bound)


def passage_reader(bench: WorkbenchFacade, collection: str) -> Callable[[PoolItem], str]:
    """``item -> text``: the pooled span of its document's Markdown. The collection's loaded chunk
    table answers when it holds that chunk at that span (no catalog read); otherwise the document
    is read once from the catalog (a pool made under another chunking)."""
    markdowns: dict[str, str] = {}
    chunks = bench.snapshot(collection, bench.config_for(collection)).chunks

    def passage_of(item: PoolItem) -> str:
        chunk = chunks.get(item.chunk_id)
        if chunk is not None and (chunk.start, chunk.end) == (item.start, item.end):
            return chunk.text
        if item.document not in markdowns:
            markdowns[item.document] = bench.markdown(bench.document(item.document, collection).id)[0]
        return markdowns[item.document][item.start : item.end]

    return passage_of


def run(
    catalog: Catalog,
    client: LlmClient,
    row: judging.PoolRow,
    todo: list[PoolItem],
    report: JudgeReport,
    passage_of: Callable[[PoolItem], str],
    *,
    max_calls: int | None,
    timeout_s: float,
    max_tokens: int,
    max_chunk_chars: int,
    progress: Callable[[int, int], None] | None = None,
) -> JudgeReport:
    """Grade ``todo`` in batches, recording each batch's grades at once; never more endpoint calls
    than ``max_calls``; stop at the first endpoint failure (what was recorded stays)."""
    batch_size = BATCH_SIZE
    position = 0
    while position < len(todo):
        budget = batch_size if max_calls is None else min(batch_size, max_calls - report.endpoint_calls)
        if budget <= 0:
            report.stopped = f"--max-calls {max_calls} reached; run again to grade the rest"
            break
        batch = todo[position : position + budget]
        requests = [
            judge_request(
                item.query, passage_of(item)[:max_chunk_chars], f"{item.query_id} / chunk {item.chunk_id}", max_tokens
            )
            for item in batch
        ]
        before_endpoint, before_cached = client.endpoint_calls, client.cached_calls
        calls = client.complete_many(requests, timeout_s=timeout_s, parse=parse_judge_reply)
        report.endpoint_calls += client.endpoint_calls - before_endpoint
        report.cached_calls += client.cached_calls - before_cached
        graded = []
        for item, call in zip(batch, calls, strict=False):
            report.tokens += 0 if call.cached else (call.total_tokens or 0)
            if call.ok:
                grade, reason = parse_judge_reply(call.text)
                graded.append((item, grade, reason))
                report.grades[grade] += 1
            elif call.error.startswith(REPLY_PROBLEMS):
                report.rejected[call.error.split(";")[0][:120]] += 1
            else:
                report.stopped = f"the LLM endpoint failed: {call.error}"
        if graded:
            report.recorded += judging.record_many(catalog, row, graded, report.judge)
        position += len(batch)
        if progress:
            progress(position, len(todo))
        if report.stopped:
            break
    return report
