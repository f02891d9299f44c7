import json
import os

import pytest

from store.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text


def test_writes_and_replaces_content(tmp_path):
    target = tmp_path / "manifest.json"
    atomic_write_json(target, {"version": 1, "name": "索引"})
    assert json.loads(target.read_text(encoding="utf-8")) == {"version": 1, "name": "索引"}
    atomic_write_text(target, "second")
    assert target.read_text(encoding="utf-8") == "second"
    atomic_write_bytes(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert os.listdir(tmp_path) == ["manifest.json"]  # no temporary files left behind


def test_failed_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "params.json"
    atomic_write_text(target, "old")
    with pytest.raises(TypeError):
        atomic_write_json(target, {"not serialisable": object()})
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "text is not bytes")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["params.json"]
