"""A repeated question gets an equal answer of its own (no answer is shared between callers)."""

from __future__ import annotations

import pytest

import napkinmath as nm

W12 = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")


def test_a_repeated_question_gets_an_equal_answer_of_its_own():
    first = nm.solve("n_gpus", **W12)
    first.notes.append("mine")
    first.givens.clear()
    second = nm.solve("n_gpus", **W12)
    assert second is not first
    assert "mine" not in second.notes and "params" in second.givens
    assert str(second) == str(nm.solve(["n_gpus"], **W12))
    # 6 N D / (T * peak * MFU): 6 * 7e9 * 1e12 / (1,814,400 s * 989.5e12 FLOP/s * 0.4)
    assert second.value.magnitude == pytest.approx(58.4845, rel=1e-5)


def test_values_of_another_type_are_another_question():
    with pytest.raises(nm.InputError, match="mfu=True"):
        nm.solve("n_gpus", **{**W12, "mfu": True})
    ones = [nm.solve("n_gpus", **{**W12, "mfu": v}).value.magnitude for v in (1, 1.0)]
    assert ones[0] == ones[1] == pytest.approx(58.4845 * 0.4, rel=1e-5)


def test_an_answer_follows_the_records_in_force_and_their_files(tmp_path):
    path = tmp_path / "ours.toml"

    def write(peak: str) -> None:
        path.write_text(
            f'[H100-SXM.peak_flops]\nvalue = "{peak}"\nsource = "derated"\ndate = "2026"\n',
            encoding="utf-8",
        )

    shipped = nm.solve("n_gpus", **W12).value.magnitude  # 58.48 at 989.5 TFLOP/s
    write("494.75 TFLOP/(s*GPU)")  # half the peak: twice the GPUs
    assert nm.solve("n_gpus", records=str(path), **W12).value.magnitude == pytest.approx(
        2 * shipped
    )
    write("1979 TFLOP/(s*GPU)")  # the same file, changed (size differs): half the GPUs
    assert nm.solve("n_gpus", records=str(path), **W12).value.magnitude == pytest.approx(
        shipped / 2
    )
    assert nm.solve("n_gpus", **W12).value.magnitude == shipped
    # an MFU is against the datasheet peak, so --achievable leaves it (and the answer) alone
    assert nm.solve("n_gpus", achievable=True, **W12).value.magnitude == shipped
