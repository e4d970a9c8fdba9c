"""One shipped record is read from its own text: the scan of record names and spans
(`napkinmath.hardware.layout.scan`) agrees with a whole parse of every shipped file, and a file
it cannot read with certainty is parsed whole."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from napkinmath import hardware
from napkinmath.hardware.layout import scan

TWO = textwrap.dedent('''\
    # a comment [not a header]
    [A-1]
    name = "first"
    aliases = ["a one", "A1"]  # two names
    source = "s"
    date = "2026"

    [A-1.peak_flops]
    value = "1 FLOP/s"
    note = """a note
    [B-2]
    aliases = ["inside a string"]
    """

    [B-2]
    source = "s"
    date = "2026"

    [B-2.tdp]
    value = "700 W/GPU"
''')


@pytest.mark.parametrize("name", hardware._files())
def test_every_shipped_file_is_scanned_and_each_record_parses_alone_as_in_the_whole(name):
    whole = hardware.load_toml(hardware._shipped_text(name), keys=False)
    layout = scan(hardware._shipped_text(name))
    assert layout is not None, f"{name}: the scan cannot read it, so a solve parses it whole"
    assert list(layout) == list(whole)
    for record_id, (aliases, _, _) in layout.items():
        assert aliases == whole[record_id].aliases
        assert hardware._chunk(name, record_id) == whole[record_id]


def test_names_and_records_are_those_of_parsing_everything():
    everything = {}
    for name in hardware._files():
        everything.update(hardware.load_toml(hardware._shipped_text(name), keys=False))
    assert hardware.shown() == everything
    assert list(hardware.shown()) == list(everything)
    assert hardware._index() == hardware.build_index(everything.values())
    assert hardware.get("h100 sxm5") == everything["H100-SXM"]
    assert hardware.get("Llama-3-70B", checked=False) == everything["llama-3-70b"]


def test_the_scan_finds_names_and_spans_and_skips_multi_line_strings():
    layout = scan(TWO)
    assert layout is not None and list(layout) == ["A-1", "B-2"]
    assert layout["A-1"][0] == ("a one", "A1") and layout["B-2"][0] == ()
    (_, start, end), (_, start_b, end_b) = layout["A-1"], layout["B-2"]
    assert TWO[start:].startswith("[A-1]\n") and end == start_b
    assert TWO[start_b:end_b].startswith("[B-2]\n") and end_b == len(TWO)
    one = hardware.load_toml(TWO[start:end], keys=False)
    assert list(one) == ["A-1"] and one["A-1"].values["peak_flops"].note.endswith(
        '"inside a string"]\n'
    )
    assert hardware.load_toml(TWO, keys=False) == {
        **one,
        **hardware.load_toml(TWO[start_b:end_b], keys=False),
    }


@pytest.mark.parametrize(
    "text",
    [
        "[A]\nsource = 's'\n[B]\nsource = 's'\n[A.x]\nvalue = '1'\n",  # A's value after B
        "[A]\naliases = [\n  'a',\n]\n",  # aliases over several lines
        "[A]\naliases = ['single quotes']\n",
        '[A]\naliases = ["esc\\"aped"]\n',
        "[A]\naliases-x = 1\n",
        "[A]\n[A]\n",  # defined twice
        '[A]\n["quoted key"]\n',
        "[[array]]\n",
        "[A.x]\nvalue = '1'\n",  # a value before any record
        "[A]\nx = [\n[1, 2]\n]\n",  # a line of a multi-line array
        '[A]\nnote = """x\n[B]"""\n',  # a header-like line that closes a string
        '[A]\nnote = """never closed\n',
    ],
)
def test_what_the_scan_cannot_read_is_parsed_whole(text):
    assert scan(text) is None


def test_one_record_is_parsed_alone():
    code = textwrap.dedent("""
        import tomllib, json
        from napkinmath import hardware
        texts = []
        real = tomllib.loads
        tomllib.loads = lambda text: texts.append(text) or real(text)
        record = hardware.get("H100", checked=False)
        print(json.dumps([record.id, [t.split("]")[0] for t in texts]]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    record_id, parsed = json.loads(done.stdout)
    assert record_id == "H100-SXM"
    assert parsed == ["[H100-SXM"]
