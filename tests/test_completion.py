"""Shell completion: subcommands, flags and the library's names (variables, records) in
bash, zsh, fish and tcsh scripts; bash and fish asked for completions as the shell would."""

from __future__ import annotations

import shutil
import subprocess

import pytest

pytest.importorskip("shtab", reason="shtab not installed: pip install 'napkinmath[completion]'")


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    from napkinmath.cli.completion import script
    from napkinmath.cli.main import _parser

    folder = tmp_path_factory.mktemp("completion")
    paths = {}
    for shell in ("bash", "zsh", "fish", "tcsh"):
        paths[shell] = folder / f"napkin.{shell}"
        paths[shell].write_text(script(_parser(), shell))
    return paths


def test_every_script_holds_variable_and_record_names(scripts):
    for shell, path in scripts.items():
        text = path.read_text()
        assert "n_gpus" in text and "time_to_first_token" in text, shell
        assert "H100-SXM" in text and "llama-3-70b" in text, shell


def test_the_cli_prints_the_fish_script(napkin):
    status, out, err = napkin("completion", "fish")
    assert status == 0, err
    assert "complete -c napkin" in out and "n_gpus" in out


def _bash(script, *words: str) -> list[str]:
    line = " ".join(words)
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
        f'COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; COMPREPLY=()\n'
        f"_shtab_napkin napkin {words[-1]} {words[-2]}\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    run = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(
    ("words", "offered"),
    [
        (("napkin", "so"), "solve"),
        (("napkin", "solve", "n_gp"), "n_gpus"),
        (("napkin", "solve", "x", "--gpu", "H1"), "H100-SXM"),
        (("napkin", "sweep", "train_ti"), "train_time"),
        (("napkin", "hardware", "llama-3-7"), "llama-3-70b"),
        (("napkin", "graph", "mf"), "mfu"),
        (("napkin", "solve", "--form"), "--format"),
    ],
)
def test_bash_completes_commands_names_and_records(scripts, words, offered):
    found = _bash(scripts["bash"], *words)
    assert offered in found
    assert all(w.startswith(words[-1]) for w in found)


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_reads_the_script_and_completes_names(scripts):
    check = subprocess.run(["fish", "-n", str(scripts["fish"])], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    for line, offered in (("napkin solve n_gp", "n_gpus"), ("napkin solve x --gpu H1", "H100-SXM")):
        run = subprocess.run(
            ["fish", "-c", f"source {scripts['fish']}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert offered in [row.split("\t")[0] for row in run.stdout.splitlines()], run.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_parses_the_script(scripts):
    check = subprocess.run(["zsh", "-n", str(scripts["zsh"])], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
