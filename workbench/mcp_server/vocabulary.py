"""Messages in the words of a tool call: the argument an agent can pass, not the flag it cannot.

The service code the tools share with the command line (``workbench/service/commands.py``,
tuning, evaluation, configuration) names each fix as the CLI's option: "pick one with
--collection NAME", "add --resume to continue it", "pass --level span". An agent calls tools
with arguments, so every message a tool returns passes ``in_tool_terms`` once, at the MCP
boundary (``HubProvider.call`` for errors, ``EvaluationLoop`` for the reasons and notes it
returns), and reads "pick one with the `collection` argument", "add `resume=true`",
"pass `level="span"`". Commands meant for the person running the server (``python -m workbench
models download NAME``) are left as written: only they can run them.

``FLAGS`` must know every option that shared code names: ``test_mcp_vocabulary`` scans the
modules whose errors the loop's tools pass on (``SCANNED``) for ``--flag`` in string literals
and fails on one it does not know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: a placeholder such as NAME, N or FILE: "--collection NAME" becomes "the `collection` argument"
PLACEHOLDER = r"[A-Z][A-Z_]*(?![\w-])"
NUMBER = r"-?\d+(?:\.\d+)?(?![\w.])"


@dataclass(frozen=True)
class Flag:
    """How one CLI option reads in a tool call."""

    #: the tool argument ("" when no tool takes it: ``instead`` says what to do)
    argument: str
    #: what may follow the flag as its value; None for a switch (``--force``: ``force=true``)
    value: str | None = PLACEHOLDER
    #: the words for an option no tool offers
    instead: str = ""


FLAGS: dict[str, Flag] = {
    # a name after these is a placeholder: a word after them may be the sentence's next one
    "collection": Flag("collection"),
    "preset": Flag("preset"),
    "golden": Flag("golden"),
    "level": Flag("level", rf"{PLACEHOLDER}|doc\b|span\b"),
    "metric": Flag("metric", rf"{PLACEHOLDER}|\w+@\d+"),
    "baseline": Flag("baseline", rf"{PLACEHOLDER}|(?:run:)?\d+\b"),
    "study": Flag("study", PLACEHOLDER),
    "keys": Flag("keys", rf"{PLACEHOLDER}|\w+\.[\w.,]+"),
    "set": Flag("settings", r"[\w.]+=(?:[^\s,;)]*[^\s,;).])?"),
    "trials": Flag("trials", NUMBER),
    "minutes": Flag("minutes", NUMBER),
    "holdout": Flag("holdout", NUMBER),
    "folds": Flag("folds", NUMBER),
    "max-drop": Flag("max_drop", NUMBER),
    "alpha": Flag("alpha", NUMBER),
    "n": Flag("n", NUMBER),
    "kinds": Flag("kinds"),
    "out": Flag("out"),
    "force": Flag("force", None),
    "resume": Flag("resume", None),
    "held-out-only": Flag("held_out_only", None),
    "grow-golden": Flag("grow_golden", None),
    # options of the command line that no tool offers
    "save-preset": Flag("", PLACEHOLDER, "the save_preset tool"),
    "space": Flag("", rf"[^\s)]+\.toml\b|{PLACEHOLDER}", "a search space file (the command line's tune only)"),
    "answers": Flag("", None, "answer evaluation (the command line's eval only)"),
    "grid": Flag("", r"\S+", "a sweep (the command line's sweep only)"),
    "max-p95-ms": Flag("", NUMBER, "a latency limit (the command line's tune only)"),
    "home": Flag("", r"\S+", "the server's home"),
    "ocr": Flag("", None, "reading skipped pictures again (the command line's sync --ocr)"),
}

#: the modules whose messages the tools pass on, where every ``--flag`` must be in ``FLAGS``
SCANNED = (
    "workbench/service/commands.py",
    "workbench/tuning",
    "workbench/evaluation",
    "workbench/golden/build.py",
    "workbench/config",
)

#: commands with a tool of their own, named as the tool (the flags after them are translated too)
COMMANDS = (
    (re.compile(r"python -m workbench eval(?: \.\.\.)?"), "the evaluate tool"),
    (re.compile(r"python -m workbench runs\b"), "list_runs"),
    (
        re.compile(r"python -m workbench golden synth --collection ([\w.-]*\w)"),
        r'synthesize_golden_set (collection="\1")',
    ),
    (re.compile(r"python -m workbench golden synth\b"), "synthesize_golden_set"),
    (re.compile(r"\btune --save-preset\b"), "save_preset"),
)
#: any other command is the server operator's to run: it keeps its flags
OPERATOR_COMMAND = re.compile(r"python -m workbench [^;)\n]*")
_FLAG = re.compile(r"(?<![\w`-])--([a-z][a-z0-9-]*)")


def in_tool_terms(message: str) -> str:
    """``message`` with each CLI option it names as the tool argument that does the same."""
    for pattern, tool in COMMANDS:
        message = pattern.sub(tool, message)
    parts, start = [], 0
    for command in OPERATOR_COMMAND.finditer(message):
        parts.append(_flags_as_arguments(message[start : command.start()]))
        parts.append(command.group(0))
        start = command.end()
    parts.append(_flags_as_arguments(message[start:]))
    return "".join(parts)


def _flags_as_arguments(text: str) -> str:
    out, position = [], 0
    for found in _FLAG.finditer(text):
        if found.start() < position:  # inside the value of the flag before
            continue
        flag = FLAGS.get(found.group(1))
        if flag is None:
            continue
        out.append(text[position : found.start()])
        position = found.end()
        value = None
        if flag.value is not None:
            given = re.compile(rf" ({flag.value})").match(text, position)
            if given:
                value, position = given.group(1), given.end()
        out.append(_render(flag, value))
    out.append(text[position:])
    return "".join(out)


def _render(flag: Flag, value: str | None) -> str:
    if not flag.argument:
        return flag.instead
    if flag.value is None:
        return f"`{flag.argument}=true`"
    if value is None or re.fullmatch(PLACEHOLDER, value):
        return f"the `{flag.argument}` argument"
    if flag.argument == "settings":
        return f'`settings=["{value}"]`'
    if re.fullmatch(NUMBER, value):
        return f"`{flag.argument}={value}`"
    return f'`{flag.argument}="{value}"`'
