"""Work spread over threads: each item taken by the first free worker, results in order."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def on_threads(workers: Sequence[Callable[[Item], Result]], items: Sequence[Item], name: str) -> list[Result]:
    """Each item through one of ``workers``, the results in the items' order.

    Each worker runs on a daemon thread of its own (a worker may hold what one thread at a time
    may use, such as an inference request) and takes the next item when it is free, so a slow
    item holds back only its own worker. Daemon threads rather than an executor: an abandoned
    caller must not keep the interpreter alive at exit. After an error no item is started, and
    the first error is raised in the caller's thread. One worker, or one item, runs in the
    caller's thread.
    """
    if len(workers) == 1 or len(items) <= 1:
        return [workers[0](item) for item in items]
    results: list[Result | None] = [None] * len(items)
    errors: list[BaseException] = []
    next_index = itertools.count()  # next() on a count is atomic under the GIL

    def run(worker: Callable[[Item], Result]) -> None:
        try:
            while not errors and (index := next(next_index)) < len(items):
                results[index] = worker(items[index])
        except BaseException as error:  # raised again in the caller's thread
            errors.append(error)

    threads = [
        threading.Thread(target=run, args=(worker,), name=f"{name}-{number}", daemon=True)
        for number, worker in enumerate(workers[: len(items)])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results  # type: ignore[return-value]  # every item ran: no None is left
