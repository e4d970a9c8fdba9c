"""`napkin audit` and `nm.audit`: other tools' files checked as they are (issue 25, item 3).

The fixtures in tests/fixtures/audit are written here in the formats of llm-analysis's GPU
configs (flat JSON, units in the key names), a roofline viewer's hardware module (a Python
dict of FLOP/s and B/s), a dict-of-dicts simulator's system definitions (bare TFLOPS, GB,
GB/s: taught with a mapping file), Calculon's system files (nested JSON, GiB and GBps), a
TOML card table, a Markdown estimate and a spreadsheet export, each with deliberate slips.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath.checking import audit_names

FIXTURES = Path(__file__).parent / "fixtures" / "audit"


def _rows(report) -> dict[str, object]:
    return {row.id: row for row in report.claims.rows}


def _slip(row) -> str:
    assert row.status == "disagree", row
    return row.result.candidates[0].label


# --- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("key", "path", "meaning"),
    [
        ("hbm_bandwidth_in_GB_per_sec", (), ("hbm_bandwidth", "GB/s")),
        ("peak_fp16_TFLOPS", (), ("peak_flops", "TFLOP/s")),
        ("mem_per_GPU_in_GB", (), ("hbm_capacity", "GB")),
        ("inter_node_bandwidth_in_GB_per_sec", (), ("scale_out_bandwidth", "GB/s")),
        ("intra_node_bandwidth_in_GB_per_sec", (), ("nvlink_bandwidth", "GB/s")),
        ("bandwidth", ("nvidia_A100",), ("hbm_bandwidth", "")),
        ("FP16", (), ("peak_flops", "")),
        ("peak_i8_TFLOPS", (), ("peak_flops_int8", "TFLOP/s")),
        ("hbm_capacity", (), ("hbm_capacity", "")),
        ("GBps", ("mem1",), ("hbm_bandwidth", "GB/s")),
        ("GiB", ("mem1",), ("hbm_capacity", "GiB")),
        ("nic_Gbps", (), ("scale_out_bandwidth", "Gb/s")),
        ("onchip_buffer", (), None),
        ("intra_node_min_message_latency", (), None),
        ("tflops", ("vector", "float16"), None),
        ("peak_fp32_TFLOPS", (), None),
        ("bandwidth", ("networks", "0"), None),  # which network: a mapping says
    ],
)
def test_key_names_map_to_variables_and_units(key, path, meaning):
    assert audit_names.key_meaning(key, path) == meaning


@pytest.mark.parametrize(
    ("name", "record"),
    [
        ("a100-sxm-80gb", "A100-SXM-80GB"),
        ("nvidia_A100_80G", "A100-SXM-80GB"),
        ("A100_40GB_GPU", "A100-SXM-40GB"),
        ("H100_GPU", "H100-SXM"),
        ("v100-sxm-32gb", "V100-SXM2-32GB"),
        ("nvidia_H100_PCIe", "H100-PCIe"),
        ("a10g-pcie-24gb", "A10G"),
        ("a6000-48gb", "RTX-A6000"),
        ("mi250x-128gb", "MI250X"),
        ("tpu_v4", "TPU-v4"),
        # safe: a different model, or a form factor no record has, is no match
        ("nvidia_L40", None),
        ("a100-pcie-40gb", None),
        ("v100-pcie-16gb", None),
        ("intel_13900k", None),
        ("hardware_params", None),
    ],
)
def test_device_names_match_records_safely(name, record):
    assert audit_names.device_record(name)[0] == record


# --- each kind, through the API -------------------------------------------------------------
def test_llm_analysis_config_bits_for_bytes_and_an_unmapped_key():
    report = nm.audit(FIXTURES / "a100-sxm-80gb.json")
    rows = _rows(report)
    assert rows["hbm_bandwidth_in_GB_per_sec"].status == "agree"
    assert rows["peak_fp16_TFLOPS"].status == "agree"
    # a 200 Gb/s HDR port typed as 200 GB/s
    assert _slip(rows["inter_node_bandwidth_in_GB_per_sec"]) == "bits vs bytes"
    assert rows["inter_node_bandwidth_in_GB_per_sec"].line == 9
    assert rows["peak_i8_TFLOPS"].status == "unchecked"
    assert "no value for peak_flops_int8" in rows["peak_i8_TFLOPS"].reason
    assert [u.key for u in report.unmapped] == ["intra_node_min_message_latency"]
    assert report.devices["a100-sxm-80gb"][0] == "A100-SXM-80GB"
    assert report.exit_status() == 1


def test_binary_prefixes_sparse_peak_and_both_directions_are_named():
    rows = _rows(nm.audit(FIXTURES / "h100-sxm-80gb.json"))
    assert _slip(rows["hbm_bandwidth_in_GB_per_sec"]) == "GB vs GiB"
    assert _slip(rows["peak_fp16_TFLOPS"]) == "sparse vs dense peak"
    assert _slip(rows["intra_node_bandwidth_in_GB_per_sec"]) == "one-way vs two-way bandwidth"
    assert rows["inter_node_bandwidth_in_GB_per_sec"].status == "agree"


def test_toml_card_table():
    report = nm.audit(FIXTURES / "cards.toml")
    rows = _rows(report)
    assert rows["v100-sxm-32gb.hbm_bandwidth_in_GB_per_sec"].status == "agree"
    assert _slip(rows["mi250x-128gb.hbm_bandwidth_in_GB_per_sec"]) == "GB vs GiB"
    assert rows["mi250x-128gb.hbm_bandwidth_in_GB_per_sec"].line == 9
    assert report.summary["agree"] == 5


def test_calculon_system_gib_slip_and_its_networks_read_unaided(tmp_path):
    # issue 47 §3: a Calculon system file is told by its keys, and its networks read as
    # Calculon defines them (GB/s one way; the first the NVLink domain, the second the
    # inter-node network), with no mapping file
    plain = nm.audit(FIXTURES / "a100_80g.json")
    assert plain.format.startswith("Calculon system file")
    rows = _rows(plain)
    assert _slip(rows["mem1.GiB"]) == "GB vs GiB"  # "80 GiB" of HBM: the card holds 80e9 B
    assert rows["mem1.GBps"].status == "agree"
    assert rows["networks.0.bandwidth"].claim == "A100-SXM-80GB.nvlink_bandwidth"
    assert rows["networks.1.bandwidth"].claim == "A100-SXM-80GB.scale_out_bandwidth"
    assert rows["networks.0.bandwidth"].status == rows["networks.1.bandwidth"].status == "agree"
    unmapped = {u.key: u for u in plain.unmapped}
    assert "networks[].bandwidth" not in unmapped
    assert unmapped["matrix.float16.gflops_efficiency[][]"].count == 4  # listed once
    assert "mem2.GiB" in unmapped and "vector.float16.tflops" in unmapped
    # the inter-node network's 200 Gb/s HDR written as 200 "GB/s": caught, exit 1
    slipped = tmp_path / "a100_80g.json"
    slipped.write_text(
        (FIXTURES / "a100_80g.json").read_text().replace('"bandwidth": 25,', '"bandwidth": 200,')
    )
    report = nm.audit(slipped)
    assert _slip(_rows(report)["networks.1.bandwidth"]) == "bits vs bytes"
    assert report.exit_status() == 1
    # a mapping file still wins over the format's reading
    taught = nm.audit(FIXTURES / "a100_80g.json", mapping=FIXTURES / "calculon_map.toml")
    assert _rows(taught)["networks.0.bandwidth"].status == "agree"


def test_a_comments_unit_belongs_to_its_value_and_a_name_that_disagrees_is_the_slip(tmp_path):
    # issue 47 §3: llm-analysis writes `inter_node_bw_GBps = 200  # 200Gbps HDR`; the comment
    # says what the number is (200 Gb/s, an HDR port), the name says GB/s: 8x apart
    module = tmp_path / "gpu_configs.py"
    module.write_text(
        "GPU = {\n"
        '    "h100": {\n'
        '        "mem_per_GPU_in_GB": 160,\n'
        '        "inter_node_bw_GBps": 200,  # 200Gbps HDR\n'
        '        "intra_node_bandwidth_in_GB_per_sec": 450,  # NVLink 4, one way\n'
        "    },\n"
        "}\n"
    )
    rows = _rows(nm.audit(module))
    port = rows["GPU.h100.inter_node_bw_GBps"]
    assert port.claimed == "200 Gb/s" and "read in its comment's unit" in port.source
    slip = rows["GPU.h100.inter_node_bw_GBps (its name vs its comment)"]
    assert _slip(slip) == "bits vs bytes" and slip.line == 4
    assert "the key's name says GB/s, its comment Gb/s" in slip.source
    # a comment without a unit of the same kind changes nothing
    assert rows["GPU.h100.intra_node_bandwidth_in_GB_per_sec"].status == "agree"
    # 160 GB against H100's 80 GB is flagged, but neither "K and V" nor "bytes per value"
    # is offered for a memory capacity no name ties to a KV cache or a precision
    memory = rows["GPU.h100.mem_per_GPU_in_GB"]
    labels = [c.label for c in memory.result.candidates]
    assert memory.status == "disagree"
    assert "K and V" not in labels and "bytes per value (precision)" not in labels


def test_a_python_dicts_name_is_matched_to_its_device(tmp_path):
    # issue 47 §3: "name": "h100-sxm-80gb" in a module's dict, as in a JSON config
    module = tmp_path / "gpu.py"
    module.write_text(
        'gpu_config = {\n    "name": "h100-sxm-80gb",\n    "mem_per_GPU_in_GB": 80,\n'
        '    "hbm_bandwidth_in_GB_per_sec": 3350,\n}\n'
    )
    report = nm.audit(module)
    assert report.devices["h100-sxm-80gb"][0] == "H100-SXM"
    assert [row.status for row in report.claims.rows] == ["agree", "agree"]


def test_an_inter_node_bandwidth_no_record_holds_is_checked_against_the_port_records(tmp_path):
    # issue 47 §3: llm-analysis's GPU configs give every GPU 200 "GB/s" between nodes; the
    # V100 record has no scale-out figure, but 200 is how an HDR InfiniBand port is quoted,
    # in Gb/s: the link records are the reference
    config = tmp_path / "v100-sxm-32gb.json"
    config.write_text(
        '{\n  "name": "v100-sxm-32gb",\n  "mem_per_GPU_in_GB": 32,\n'
        '  "inter_node_bandwidth_in_GB_per_sec": 200\n}\n'
    )
    report = nm.audit(config)
    port = _rows(report)["inter_node_bandwidth_in_GB_per_sec"]
    assert port.claim == "InfiniBand-HDR.link_bandwidth" and _slip(port) == "bits vs bytes"
    assert [c.label for c in port.result.candidates] == ["bits vs bytes", "per-GPU vs per-node"]
    assert report.exit_status() == 1
    # a number no port is quoted as stays unchecked, saying why
    config.write_text(config.read_text().replace(": 200", ": 123"))
    odd = _rows(nm.audit(config))["inter_node_bandwidth_in_GB_per_sec"]
    assert odd.status == "unchecked" and "no value for scale_out_bandwidth" in odd.reason


def test_python_numbers_only_constant_arithmetic(tmp_path):
    source = tmp_path / "params.py"
    source.write_text(
        "import os\n"
        "hbm_bandwidth = 2039 * 10**9  # B/s\n"
        "peak_fp16_TFLOPS = 312.0\n"
        "mem_per_GPU_in_GB = 2**9999\n"  # an exponent too large: not evaluated
        "peak_i8_TFLOPS = os.cpu_count()\n"
        "def f():\n    return 1\n",
        encoding="utf-8",
    )
    report = nm.audit(source, gpu="A100")
    rows = _rows(report)
    assert rows["hbm_bandwidth"].status == "agree"
    assert rows["peak_fp16_TFLOPS"].status == "agree"
    whys = {u.key: u.why for u in report.unmapped}
    assert "not a number" in whys["mem_per_GPU_in_GB"]
    assert whys["peak_i8_TFLOPS"] == "peak_flops_int8: not a number: a function call, never run"


def test_genz_system_configs_read_unaided():
    # GenZ's system_configs: TFLOPS, GB and GB/s in bare numbers, its keys told apart from
    # any other dict of numbers (issue 47 §3); its ICN means a GPU's NVLink on NVIDIA parts
    # but one ICI link on TPUs, so it is read only as a mapping file teaches it
    bare = nm.audit(FIXTURES / "system_configs.py")
    assert bare.format.startswith("GenZ system configs")
    rows = _rows(bare)
    assert rows["system_configs.A100_80GB_GPU.Memory_BW"].status == "agree"
    assert rows["system_configs.H100_GPU.Flops"].status == "agree"
    icn = rows["system_configs.A100_80GB_GPU.ICN"]
    assert icn.status == "unchecked" and "teach it with --mapping" in icn.reason
    assert bare.exit_status() == 2 and bare.exit_status(allow_unchecked=True) == 0
    taught = nm.audit(FIXTURES / "system_configs.py", mapping=FIXTURES / "genz_map.toml")
    slip = _rows(taught)["system_configs.A100_80GB_GPU.ICN"]
    assert _slip(slip) == "one-way vs two-way bandwidth"
    assert taught.exit_status() == 1


def test_bare_numbers_of_an_unknown_format_need_a_mapping(tmp_path):
    module = tmp_path / "sim.py"
    module.write_text('systems = {"A100_80GB_GPU": {"Compute": 312, "Mem": 80}}\n')
    report = nm.audit(module)
    assert not report.format
    assert report.exit_status() == 2


def test_markdown_one_verdict_per_arithmetic_line():
    report = nm.audit(FIXTURES / "estimate.md")
    verdicts = {row.line: row.status for row in report.claims.rows}
    assert verdicts == {3: "agree", 5: "agree", 7: "agree", 8: "disagree", 9: "agree"}
    rows = _rows(report)
    assert rows["line 5"].claim == "6.3e24 / (8960 * 4.59e14 * 0.4)"
    assert "'seconds' is not compared" in rows["line 5"].source
    assert _slip(rows["line 8"]) == "bits vs bytes"


def test_markdown_code_blocks_are_not_claims(tmp_path):
    # a command and its output in a fence (as README shows `napkin check`), a tilde fence
    # with a shorter fence inside it: neither is the document's claim (issue 47 §3)
    page = tmp_path / "plan.md"
    page.write_text(
        "# Plan\n\nWeights: 70e9 * 2 B = 140 GB\n\n```text\n"
        '$ napkin check "140 GB / (400 Gb/s)"\n140 GB / (400 Gb/s) = 0.35 s\n```\n\n'
        "~~~~\n1 + 1 = 3\n~~~\n2 * 2 = 5\n~~~~\nAfter: 2 * 3 = 6\n"
    )
    report = nm.audit(page)
    assert [row.line for row in report.claims.rows] == [3, 15]
    assert report.exit_status() == 0


def test_a_line_that_names_a_quantity_of_a_record_is_checked_against_it(tmp_path):
    # issue 47 §3: the arithmetic agrees with itself, but the line says it is Llama-3-70B's
    # KV cache per token: 2·80·64·128·2 B uses the 64 attention heads where its 8 KV heads
    # belong (napkinmath: 2·80·8·128·2 = 327,680 B a token)
    page = tmp_path / "sizing.md"
    page.write_text(
        "KV cache per token for Llama-3-70B: 2 * 80 * 64 * 128 * 2 B = 2.6 MB\n"
        "Llama-3-70B weights in bf16: 70e9 * 2 B = 140 GB\n"
        "Checkpoint over the NIC: 140 GB / (400 GB/s) = 0.35 s\n"
    )
    rows = _rows(nm.audit(page))
    assert rows["line 1"].status == "agree"  # its own arithmetic
    kv = rows["line 1 (kv_bytes_per_token)"]
    assert kv.claimed == "2.6 MB/token" and _slip(kv) == "attention heads vs KV heads (GQA)"
    assert rows["line 2 (weight_memory)"].status == "agree"  # 141.2 GB: within 2%
    assert set(rows) == {
        "line 1",
        "line 1 (kv_bytes_per_token)",
        "line 2",
        "line 2 (weight_memory)",
        "line 3",
    }  # no record named on line 3


def test_csv_with_its_own_columns():
    report = nm.audit(
        FIXTURES / "sheet.csv", columns="id=Item,value=Value,unit=Unit,expression=Formula"
    )
    rows = _rows(report)
    assert rows["weights"].status == "agree"
    assert _slip(rows["all-gather"]) == "bits vs bytes"
    assert rows["all-gather"].line == 3
    assert "cell references" in rows["tokens per day"].reason
    with pytest.raises(nm.InputError, match="no column 'Formula2'"):
        nm.audit(FIXTURES / "sheet.csv", columns="value=Value,expression=Formula2")
    with pytest.raises(nm.InputError, match="name this file's own columns: --columns"):
        nm.audit(FIXTURES / "sheet.csv")
    with pytest.raises(nm.InputError, match="ROLE=HEADER"):
        nm.audit(FIXTURES / "sheet.csv", columns="valu=Value")


# --- hostile input --------------------------------------------------------------------------
def test_hostile_inputs(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"{" + b" " * 5_000_001 + b"}")
    with pytest.raises(nm.InputError, match="larger than 5,000,000 bytes"):
        nm.audit(big)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(nm.InputError, match="nested more than"):
        nm.audit(deep)
    deep_py = tmp_path / "deep.py"
    deep_py.write_text("x = " + "(" * 50_000 + "1" + ")" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(nm.InputError, match="not valid Python"):
        nm.audit(deep_py)
    with pytest.raises(nm.InputError, match="a directory"):
        nm.audit(tmp_path, kind="json")
    with pytest.raises(nm.InputError, match="no such audited file"):
        nm.audit(tmp_path / "missing.json")
    with pytest.raises(nm.InputError, match="YAML is not read"):
        nm.audit(tmp_path / "gpu.yaml")
    with pytest.raises(nm.InputError, match="--kind"):
        nm.audit(tmp_path / "gpu.conf")
    link = tmp_path / "environ.json"
    os.symlink("/proc/self/environ", link)
    with pytest.raises(nm.InputError, match="pseudo-file"):
        nm.audit(link)
    huge = tmp_path / "huge.json"
    huge.write_text('{"name": "a100", "hbm_bandwidth_in_GB_per_sec": 1' + "0" * 400 + "}")
    assert nm.audit(huge).unmapped[0].why == "hbm_bandwidth: not finite"
    many = tmp_path / "many.json"
    many.write_text(json.dumps({f"k{i}": i for i in range(10_002)}), encoding="utf-8")
    with pytest.raises(nm.InputError, match="more than 10,000 values"):
        nm.audit(many)
    long_number = tmp_path / "long.py"
    long_number.write_text("x = 1" + "0" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(nm.InputError, match="not valid Python"):
        nm.audit(long_number)
    bad = tmp_path / "bad.toml"
    bad.write_text('Flops = "peak_flop [TFLOP/s]"\n', encoding="utf-8")
    with pytest.raises(nm.InputError, match="napkinmath variable"):
        nm.audit(FIXTURES / "system_configs.py", mapping=bad)


# --- the CLI ---------------------------------------------------------------------------------
def test_cli_exit_statuses_and_formats(napkin, tmp_path):
    status, out, _ = napkin("audit", str(FIXTURES / "a100-sxm-80gb.json"))
    assert status == 1 and "DISAGREE: bits vs bytes?" in out and "Not mapped (1):" in out
    status, out, _ = napkin("audit", str(FIXTURES / "cards.toml"), "--format", "json")
    data = json.loads(out)
    assert status == 1 and data["schema"] == "napkinmath-claims/1"
    assert data["audit"]["kind"] == "toml" and data["summary"]["disagree"] == 1
    status, out, _ = napkin("audit", str(FIXTURES / "estimate.md"), "--format", "markdown")
    assert status == 1 and out.startswith("### Audit of") and "| 8 |" not in out
    good = tmp_path / "good.md"
    good.write_text("Weights: 70e9 param * 2 B/param = 140 GB\n", encoding="utf-8")
    assert napkin("audit", str(good))[0] == 0
    unknown = tmp_path / "sim.py"
    unknown.write_text('systems = {"A100_80GB_GPU": {"Compute": 312, "Mem": 80}}\n')
    status, _, err = napkin("audit", str(unknown))
    assert status == 2 and "could not be checked" in err
    status, _, _ = napkin(
        "audit", str(FIXTURES / "system_configs.py"), "--mapping", str(FIXTURES / "genz_map.toml")
    )
    assert status == 1
    status, _, err = napkin("audit", str(tmp_path / "nothing.json"))
    assert status == 2 and "no such audited file" in err


def test_cli_json_validates_against_the_claims_schema(napkin):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(
        (Path(__file__).parent.parent / "engine" / "schema" / "claims.schema.json").read_text()
    )
    _, out, _ = napkin("audit", str(FIXTURES / "hardware_params.py"), "--format", "json")
    jsonschema.validate(json.loads(out), schema)


def test_check_hands_other_tools_files_to_audit(napkin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = napkin("check", str(FIXTURES / "hardware_params.py"))
    assert status == 1 and "Audit of" in out and "bits vs bytes" in out
    assert not (tmp_path / "AUDIT_WAS_EXECUTED").exists()
    status, out, _ = napkin("check", str(FIXTURES / "a100-sxm-80gb.json"))
    assert status == 1 and "inter_node_bandwidth_in_GB_per_sec" in out
    status, out, _ = napkin("check", str(FIXTURES / "estimate.md"))
    assert status == 1 and "line 8" in out
    # a claims table is still a claims table
    claims = tmp_path / "claims.json"
    claims.write_text(
        json.dumps({"claims": [{"expression": "70e9 param * 2 B/param", "claimed": "140 GB"}]}),
        encoding="utf-8",
    )
    status, out, _ = napkin("check", str(claims))
    assert status == 0 and "Audit of" not in out
    report = nm.audit(claims)  # napkinmath's own claims table, audited as one
    assert report.summary["agree"] == 1 and report.exit_status() == 0
    status, _, err = napkin("check", str(FIXTURES / "estimate.md"), "--expect", "1 s")
    assert status == 2 and "audited as it is" in err


def test_same_file_same_bytes(napkin):
    first = napkin("audit", str(FIXTURES / "hardware_params.py"), "--format", "json")
    again = napkin("audit", str(FIXTURES / "hardware_params.py"), "--format", "json")
    assert first == again
    report = nm.audit(FIXTURES / "hardware_params.py")
    assert report.markdown.startswith("### Audit of") and str(report) == report.text


def test_values_the_audit_cannot_read_are_listed_as_unread_and_strict_fails(tmp_path, napkin):
    """Issue 44: a wrong value written as a string, as a call, or changed by a later
    assignment was dropped or "not mapped" and the audit passed. A later plain assignment is
    read (the last value given); what cannot be read is "unread", and --strict fails on it."""
    source = tmp_path / "hw.py"
    source.write_text(
        "H100 = {\n"
        '    "peak_flops": 989.5e12,  # dense BF16\n'
        '    "hbm_bandwidth": "3120",\n'
        '    "nvlink_bandwidth": float(3120),\n'
        '    "hbm_capacity": 80e9,\n'
        "}\n"
        'H100["hbm_capacity"] = 3120e9\n'  # wrong, and later: read
        'H100["peak_flops"] += 1\n'
        "H100[key()] = 5\n",
        encoding="utf-8",
    )
    report = nm.audit(source)
    rows = _rows(report)
    assert "H100.peak_flops" not in rows  # changed by += later: unread, not its first value
    assert rows["H100.hbm_capacity"].status == "disagree"  # 3,120 GB: the later value
    unread = {u.key: u.why for u in report.unread}
    assert unread == {
        "H100.peak_flops": (
            "peak_flops: not a number: changed later, at line 8 (H100['peak_flops'] += 1)"
        ),
        "H100.hbm_bandwidth": "hbm_bandwidth: a number written as text ('3120'), not read as one",
        "H100.nvlink_bandwidth": "nvlink_bandwidth: not a number: a function call, never run",
    }
    assert "H100[key()]" in {u.key for u in report.unmapped if not u.unread}
    assert report.summary["unread"] == 3
    status, out, _ = napkin("audit", str(source))
    assert status == 1 and "Unread (3: their keys name variables" in out
    source.write_text(source.read_text().replace("3120e9", "80e9"), encoding="utf-8")
    assert napkin("audit", str(source))[0] == 0
    status, _, err = napkin("audit", str(source), "--strict")
    assert status == 2 and "3 values whose keys name variables could not be read" in err
