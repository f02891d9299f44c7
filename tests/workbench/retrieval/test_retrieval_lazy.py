"""Values built on first read: built once, read like dicts, copied and pickled as plain dicts."""

from __future__ import annotations

import copy
import json
import pickle

from workbench.retrieval.lazy import LazyMapping


def test_builds_once_on_first_read_and_reads_like_a_dict():
    calls = []
    lazy = LazyMapping(lambda: calls.append(1) or {1: "a", 2: "b"})
    assert calls == [] and not lazy.built
    assert lazy[1] == "a" and lazy.get(3) is None and 2 in lazy and list(lazy) == [1, 2] and len(lazy) == 2
    assert lazy == {1: "a", 2: "b"} and {1: "a", 2: "b"} == lazy
    assert calls == [1] and lazy.built


def test_copies_pickles_and_json_see_a_plain_dict():
    lazy = LazyMapping(lambda: {"k": {"nested": 1.5}})
    assert type(pickle.loads(pickle.dumps(lazy))) is dict
    assert copy.deepcopy(lazy) == {"k": {"nested": 1.5}}
    assert json.loads(json.dumps(dict(lazy))) == {"k": {"nested": 1.5}}
