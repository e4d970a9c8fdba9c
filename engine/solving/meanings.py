"""Words that keep their meaning: notes where a given changes what a step's number counts.

    solve("mfu", ..., flop_per_param_token=8)   # 8ND counts the recomputed forward pass

The 6ND rule counts model FLOPs (2 forward + 4 backward per parameter per token, Kaplan et al.
2020); MFU divides model FLOPs by the peak (PaLM, Appendix B). A given `flop_per_param_token`
other than 6 makes `train_compute` count what it says instead (8: full activation
recomputation runs the forward pass twice, so these are hardware FLOPs), and an `mfu` beside
it a hardware FLOPs utilization (HFU). Every step of the 6ND formula then says what its number
now counts, and the answer says what the MFU is by PaLM's definition.
"""

from __future__ import annotations

from napkinmath.answer.result import Result

#: FLOP per parameter per token of the 6ND rule (model FLOPs)
MODEL_FLOP_PER_PARAM_TOKEN = 6.0


def mark_flop_counts(result: Result) -> None:
    """Notes where a `flop_per_param_token` other than 6 changes what train_compute and an
    MFU mean."""
    given = result.givens.get("flop_per_param_token")
    if given is None or given.origin == "assumption":
        return
    k = float(given.quantity.to("FLOP/(param*token)").magnitude)
    if k == MODEL_FLOP_PER_PARAM_TOKEN:
        return
    what = (
        "full activation recomputation's second forward pass too (8ND, hardware FLOPs)"
        if k == 8
        else f"{k:g} FLOP per parameter per token, not the rule's 6"
    )
    steps = [s for s in result.steps if any(f.name == "training_compute" for f in s.formulas)]
    for step in steps:
        said = (
            f"flop_per_param_token = {k:g} counts {what}, so train_compute here is not "
            "the 6ND model FLOPs"
        )
        step.note = f"{step.note}; {said}" if step.note else said
    if steps and ("mfu" in result.givens or "mfu" in result.targets):
        mfu = result.values["mfu"] if "mfu" in result.targets else result.givens["mfu"].quantity
        share = float(mfu.to("").magnitude) * MODEL_FLOP_PER_PARAM_TOKEN / k
        result.notes.append(
            f"with flop_per_param_token = {k:g}, mfu here is a hardware FLOPs utilization "
            f"(HFU): by PaLM's definition (6ND model FLOPs) the MFU is mfu × 6/{k:g} = "
            f"{share:.1%}"
        )
