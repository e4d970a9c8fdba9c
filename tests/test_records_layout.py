"""The shipped records are every shipped file parsed whole, in name order: the names, the
aliases and the index are those of parsing each file on its own."""

from __future__ import annotations

from importlib import resources

from napkinmath import hardware


def _each_file_parsed() -> dict[str, hardware.Record]:
    everything: dict[str, hardware.Record] = {}
    folder = resources.files("napkinmath.hardware")
    for name in sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml")):
        text = folder.joinpath(name).read_text("utf-8")
        everything.update(hardware.load_toml(text, keys=False))
    return everything


def test_names_and_records_are_those_of_parsing_everything():
    everything = _each_file_parsed()
    assert len(everything) > 50
    assert hardware.shown() == everything
    assert list(hardware.shown()) == list(everything)
    assert hardware.get("h100 sxm5") == everything["H100-SXM"]
    assert hardware.get("Llama-3-70B", checked=False) == everything["llama-3-70b"]


def test_every_name_and_alias_finds_its_record():
    for record_id, record in _each_file_parsed().items():
        for name in (record_id, *record.aliases):
            assert hardware.find(name) == record_id, name
