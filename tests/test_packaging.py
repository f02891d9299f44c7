"""The package's declaration: its dependencies agree with the pinned set, and its command exists."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT_DIR = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text(encoding="utf-8"))


def _pins() -> dict[str, Requirement]:
    lines = (PROJECT_DIR / "requirements.txt").read_text(encoding="utf-8").splitlines()
    pins = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return {canonicalize_name(pin.name): pin for pin in pins}


def test_every_declared_dependency_is_pinned_to_a_version_it_accepts():
    project = _pyproject()["project"]
    declared = [Requirement(text) for text in (*project["dependencies"], *project["optional-dependencies"]["dev"])]
    pins = _pins()
    for requirement in declared:
        pin = pins.get(canonicalize_name(requirement.name))
        assert pin is not None, f"{requirement.name} is declared in pyproject.toml but not pinned in requirements.txt"
        (exact,) = [spec for spec in pin.specifier if spec.operator == "=="]
        assert requirement.specifier.contains(exact.version), f"{pin} does not satisfy {requirement}"
        assert pin.extras == requirement.extras, requirement.name
    assert set(pins) == {canonicalize_name(r.name) for r in declared}, "a pin that pyproject.toml does not declare"


def test_the_workbench_command_is_the_cli_and_answers_help(capsys):
    import importlib

    module, _, function = _pyproject()["project"]["scripts"]["workbench"].partition(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out
