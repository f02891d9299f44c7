"""Preset commands: ``presets`` lists them, ``save-preset`` stores the effective --set overrides."""

from __future__ import annotations

from workbench.cli.common import EXIT_OK, workbench_from
from workbench.text import preset_label


def add_commands(commands, common) -> None:
    p = commands.add_parser("presets", help="list presets")
    common(p)
    p.set_defaults(handler=cmd_presets)

    p = commands.add_parser("save-preset", help="save the effective --set overrides as a named preset")
    p.add_argument("name")
    p.add_argument("--description", default="")
    common(p)
    p.set_defaults(handler=cmd_save_preset)


def cmd_presets(args) -> int:
    bench = workbench_from(args)
    for preset in bench.presets():
        shown = " ".join(f"{k}={v}" for k, v in sorted(preset.overrides.items())) or "(built-in defaults)"
        name = preset_label(preset.name, preset.forced)
        print(f"{name:<20} {shown}" + (f"  # {preset.description}" if preset.description else ""))
    return EXIT_OK


def cmd_save_preset(args) -> int:
    from workbench.config import WorkbenchConfig, overrides_between

    bench = workbench_from(args)
    base = bench.preset_overrides(args.preset) if args.preset else {}
    overrides = {**base, **WorkbenchConfig().with_overrides(args.overrides).flat()}
    chosen = overrides_between(WorkbenchConfig(), WorkbenchConfig.from_dict(overrides))
    saved = bench.save_preset(args.name, chosen, args.description)
    print(f"saved preset {args.name!r}: " + (" ".join(f"{k}={v}" for k, v in saved.items()) or "(defaults)"))
    return EXIT_OK
