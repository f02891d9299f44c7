"""A preset's whole record on Presets & MCP: its description uncut, what it stores, and the
provenance ``tune`` recorded (study, golden set, split, held-out gain and interval, forced or not).

The saved-presets table cuts a long description ("tune demo-…: held-out ndcg@10 +0.0714 [+0…"),
so a forced save there read like a real one; this view shows the record the preset carries.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from store.settings import StoredPreset
from workbench.text import preset_label
from workbench.ui.text import md_escape

RECORD_KEY = "preset_record_pick"
FORCED_NOTE = (
    "Forced: saved with force although its held-out interval did not lie above zero, so the gain "
    "it was tuned for is not distinguishable from none."
)


def record_lines(preset: StoredPreset) -> list[str]:
    """What a tuned preset's provenance says, one plain sentence each ([] without provenance)."""
    record = preset.provenance or {}
    if not record:
        return []
    lines = []
    if record.get("study"):
        lines.append(
            f"Chosen by {record.get('tool', 'tune')}, study {record['study']}, "
            f"after {record.get('trials', '?')} trials."
        )
    if record.get("golden"):
        split = record.get("split") or {}
        how = (
            f"{split['folds']}-fold nested cross-validation"
            if "folds" in split
            else f"{split.get('holdout', '?')} of the queries held out"
        )
        lines.append(
            f"Golden set {record['golden']} of collection {record.get('collection', '?')}, "
            f"{record.get('level', 'doc')} level, {how} (seed {record.get('seed', '?')})."
        )
    held = record.get("held_out") or {}
    if held:
        interval = held.get("interval") or {}
        lines.append(
            f"Held-out {held.get('metric', '')}: {held.get('base', 0):.4f} -> {held.get('winner', 0):.4f}, "
            f"gain {held.get('gain', 0):+.4f}, 95% interval [{interval.get('low', 0):+.4f}, "
            f"{interval.get('high', 0):+.4f}] over {held.get('queries', '?')} queries: {held.get('verdict', '')}."
        )
    if record.get("based_on"):
        varied = ", ".join(record.get("varied") or []) or "nothing"
        lines.append(f"Started from preset {record['based_on']}; varied {varied}.")
    if record.get("saved_at"):
        lines.append(f"Saved {record['saved_at']}.")
    return lines


def preset_record_view(presets: Sequence[StoredPreset]) -> None:
    """A picker of presets and, for the one picked, its whole record."""
    by_name = {preset.name: preset for preset in presets}
    names = list(by_name)
    labels = {name: preset_label(name, by_name[name].forced) for name in names}
    tuned = [name for name in names if by_name[name].provenance]
    with st.expander("Whole record of a preset (description, settings, provenance)", key="preset_record"):
        name = st.selectbox(
            "Preset",
            names,
            index=names.index(tuned[0]) if tuned else 0,
            key=RECORD_KEY,
            format_func=labels.__getitem__,
        )
        if name is None:
            return
        preset = by_name[name]
        if preset.forced:
            st.warning(FORCED_NOTE, icon=":material/warning:")
        st.markdown(f"**Description:** {md_escape(preset.description) or '(none)'}")
        st.code(
            "\n".join(f"{key}={value}" for key, value in sorted(preset.overrides.items())) or "(built-in defaults)",
            language=None,
        )
        lines = record_lines(preset)
        if not lines:
            st.caption("No provenance: saved by hand, not chosen by a tool.")
            return
        st.markdown("\n".join(f"- {md_escape(line)}" for line in lines))
        st.json(preset.provenance, expanded=True)
