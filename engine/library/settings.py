"""Settings: one named choice that stands for several givens, as practitioners state a layout.

    recompute = none        recomputed_layer_fraction = 0, selective_recompute = 0
    recompute = selective   selective_recompute = 1, recomputed_layer_fraction = 0,
                            attention_score_bytes = 0
    recompute = full        recomputed_layer_fraction = 1, selective_recompute = 0,
                            backward_fraction = 3/4

``solve(..., recompute="selective")`` and ``napkin solve ... recompute=selective`` bind those
givens as the user's own, each saying which setting it came from. A setting and one of the
variables it sets, both given, are an error (say one of them); so is a value the setting does
not have. Sources: Korthikanti et al. 2022 (arXiv:2205.05198) §5 for selective recomputation
(the attention scores are recomputed, not stored: no attention-score bytes) and full
recomputation (only each layer's input kept; a second forward pass, so the backward with its
recomputed forward is 6ND of 8ND: 3/4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from napkinmath.errors import InputError


@dataclass(frozen=True)
class Setting:
    """A named choice: each of its values stands for a set of givens."""

    name: str
    description: str
    choices: Mapping[str, Mapping[str, float]]
    source: str


KORTHIKANTI_2022 = "Korthikanti et al. 2022, arXiv:2205.05198, §5"

SETTINGS: dict[str, Setting] = {
    "recompute": Setting(
        "recompute",
        "activation recomputation: none, selective (attention scores) or full (every layer)",
        {
            "none": {"recomputed_layer_fraction": 0, "selective_recompute": 0},
            "selective": {
                "selective_recompute": 1,
                "recomputed_layer_fraction": 0,
                "attention_score_bytes": 0,
            },
            "full": {
                "recomputed_layer_fraction": 1,
                "selective_recompute": 0,
                "backward_fraction": 0.75,
            },
        },
        KORTHIKANTI_2022,
    ),
}


def expand(givens: Mapping[str, object]) -> tuple[dict[str, object], dict[str, str]]:
    """`givens` with each setting replaced by the givens it stands for, and for each of those
    a note naming the setting ("recompute=selective")."""
    if not any(name in SETTINGS for name in givens):
        return dict(givens), {}
    out: dict[str, object] = {}
    notes: dict[str, str] = {}
    for name, value in givens.items():
        setting = SETTINGS.get(name)
        if setting is None:
            out[name] = value
            continue
        if not isinstance(value, str) or value not in setting.choices:
            from napkinmath.arguments import shown

            raise InputError(
                f"{name}={shown(value)}: choose one of "
                f"{', '.join(map(repr, setting.choices))} ({setting.description})",
                name,
            )
        for var, number in setting.choices[value].items():
            if var in givens:
                raise InputError(
                    f"{name}={value} sets {var}, which is given too: give one of them",
                    var,
                )
            out[var] = number
            notes[var] = f"{name}={value} ({setting.source})"
    return out, notes
