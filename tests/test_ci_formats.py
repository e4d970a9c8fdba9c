"""A checked file's findings for CI (issue 48 §2): GitHub Actions annotations by their grammar,
JUnit XML by a parser, SARIF 2.1.0 against the schema of the parts it uses; each on the lines
the findings are on, and the exit status the same as every other format's."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

NOTES = """\
# Sizing notes

Checkpoint over the NIC: 140 GB / (400 Gb/s) = 0.35 s
Weights: 70e9 * 2 B = 140 GB
A made-up factor: 3 * banana = 4
"""
CONFIG = """\
{
  "name": "h100-sxm-80gb",
  "hbm_bandwidth_GBps": 3350,
  "peak_bf16_tflops": 1979,
  "inter_node_bw_GBps": 400
}
"""

#: a workflow command: ::level key=value,key=value::message (GitHub's workflow commands)
ANNOTATION = re.compile(r"^::(error|warning|notice) ((?:\w+=[^,:]*)(?:,\w+=[^,:]*)*)::(.*)$")


def unescape(text: str) -> str:
    return (
        text.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def annotations(out: str) -> list[tuple[str, dict[str, str], str]]:
    found = []
    for line in out.splitlines():
        match = ANNOTATION.match(line)
        assert match, f"not a workflow command: {line!r}"
        level, props, message = match.groups()
        fields = dict(p.split("=", 1) for p in props.split(","))
        found.append((level, {k: unescape(v) for k, v in fields.items()}, unescape(message)))
    return found


@pytest.fixture
def notes(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("notes.md").write_text(NOTES)
    Path("config.json").write_text(CONFIG)
    return "notes.md"


def test_github_annotations_put_each_finding_on_its_line(napkin, notes):
    status, out, _ = napkin("audit", notes, "--format", "github")
    assert status == 1  # a claim disagrees, as every format's exit status says
    found = annotations(out)
    assert [(level, p.get("line")) for level, p, _ in found] == [
        ("error", "3"),
        ("warning", "5"),
        ("notice", None),
    ]
    _, props, message = found[0]
    assert props["file"] == "notes.md" and props["title"] == "napkinmath: line 3"
    assert "claimed 0.35 s" in message and "bits vs bytes" in message
    assert "corrected claim: 0.35 s × 8 = 2.8 s" in message
    assert "banana" in found[1][2]
    assert found[2][2] == "3 claims: 1 agree, 1 disagree, 1 could not be checked"


def test_check_hands_a_file_to_the_same_annotations(napkin, notes):
    assert napkin("check", notes, "--format", "github") == napkin(
        "audit", notes, "--format", "github"
    )
    status, _, err = napkin("check", "1 + 1", "--format", "github")
    assert status == 2 and "check a file" in err


def test_junit_has_a_test_case_per_claim(napkin, notes):
    status, out, _ = napkin("audit", "config.json", "--gpu", "H100-SXM", "--format", "junit")
    assert status == 1
    root = ET.fromstring(out)
    assert root.tag == "testsuites" and root.get("failures") == "2"
    (suite,) = root
    cases = suite.findall("testcase")
    assert suite.get("tests") == str(len(cases)) == "3"
    assert [c.get("line") for c in cases] == ["3", "4", "5"]
    assert all(c.get("file") == "config.json" for c in cases)
    failures = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    bits = failures["inter_node_bw_GBps: H100-SXM.scale_out_bandwidth"]
    assert "bits vs bytes" in (bits.text or "")
    sparse = failures["peak_bf16_tflops: H100-SXM.peak_flops"]
    assert sparse.get("type") == "napkinmath/disagree" and "sparse" in (sparse.text or "")


def test_junit_of_a_claims_table_and_a_claim_with_control_characters(napkin, tmp_path):
    _, out, _ = napkin("check", str(EXAMPLES / "claims.csv"), "--format", "junit")
    root = ET.fromstring(out)  # parses: well-formed
    cases = root.find("testsuite").findall("testcase")
    assert len(cases) == int(root.get("tests")) > 10
    assert all(c.get("line") for c in cases)
    odd = tmp_path / "odd.md"
    odd.write_text("bad \x1b[31m: 1 GB / (1 Gb/s) = 1 s <&>\n")
    _, out, _ = napkin("audit", str(odd), "--format", "junit")
    ET.fromstring(out)
    assert "\x1b" not in out


#: the parts of SARIF 2.1.0 (OASIS Standard, 2020) napkinmath writes, as its schema states
#: them: the required properties, the enumerations, and no property outside them
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {"$ref": "#/definitions/run"}},
    },
    "definitions": {
        "run": {
            "type": "object",
            "required": ["tool"],
            "additionalProperties": False,
            "properties": {
                "tool": {"$ref": "#/definitions/tool"},
                "artifacts": {"type": "array", "items": {"$ref": "#/definitions/artifact"}},
                "results": {"type": "array", "items": {"$ref": "#/definitions/result"}},
            },
        },
        "tool": {
            "type": "object",
            "required": ["driver"],
            "additionalProperties": False,
            "properties": {"driver": {"$ref": "#/definitions/toolComponent"}},
        },
        "toolComponent": {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string"},
                "version": {"type": "string"},
                "rules": {"type": "array", "items": {"$ref": "#/definitions/descriptor"}},
            },
        },
        "descriptor": {
            "type": "object",
            "required": ["id"],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "string"},
                "shortDescription": {"$ref": "#/definitions/message"},
                "defaultConfiguration": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"level": {"$ref": "#/definitions/level"}},
                },
            },
        },
        "level": {"enum": ["none", "note", "warning", "error"]},
        "message": {
            "type": "object",
            "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
            "properties": {"text": {"type": "string"}, "id": {"type": "string"}},
        },
        "artifact": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"location": {"$ref": "#/definitions/artifactLocation"}},
        },
        "artifactLocation": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"uri": {"type": "string"}, "uriBaseId": {"type": "string"}},
        },
        "result": {
            "type": "object",
            "required": ["message"],
            "additionalProperties": False,
            "properties": {
                "ruleId": {"type": "string"},
                "ruleIndex": {"type": "integer", "minimum": -1},
                "level": {"$ref": "#/definitions/level"},
                "message": {"$ref": "#/definitions/message"},
                "locations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "physicalLocation": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "artifactLocation": {"$ref": "#/definitions/artifactLocation"},
                                    "region": {
                                        "type": "object",
                                        "additionalProperties": False,
                                        "properties": {
                                            "startLine": {"type": "integer", "minimum": 1}
                                        },
                                    },
                                },
                            }
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_validates_and_points_at_the_lines(napkin, notes):
    status, out, _ = napkin("audit", notes, "--format", "sarif")
    assert status == 1
    log = json.loads(out)
    jsonschema.validate(log, SARIF_SUBSET)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [r["level"] for r in results] == ["error", "warning"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        where = result["locations"][0]["physicalLocation"]
        assert where["artifactLocation"] == {"uri": "notes.md", "uriBaseId": "%SRCROOT%"}
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [
        3,
        5,
    ]


def test_a_clean_file_exits_zero_in_every_format(napkin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("fine.md").write_text("Weights: 70e9 * 2 B = 140 GB\n")
    for fmt in ("github", "junit", "sarif"):
        status, out, _ = napkin("audit", "fine.md", "--format", fmt)
        assert status == 0, fmt
    _, out, _ = napkin("audit", "fine.md", "--format", "github")
    assert [level for level, _, _ in annotations(out)] == ["notice"]


def test_the_pre_commit_hook_runs_as_pre_commit_would(napkin, tmp_path, monkeypatch):
    # pre-commit runs `entry args FILES...` on the changed files its `files` pattern matches
    text = (Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text()
    fields = dict(
        re.findall(r"^  ([a-z_]+): (.+)$", text, flags=re.MULTILINE)
        + re.findall(r"^- (id): (.+)$", text, flags=re.MULTILINE)
    )
    assert fields["id"] == "napkin-audit" and fields["language"] == "python"
    pattern = re.compile(fields["files"].strip("'"))
    changed = ["docs/plan.md", "data/claims.csv", "claims-2026.toml", "README.md", "src/x.py"]
    assert [f for f in changed if pattern.search(f)] == changed[:4]
    monkeypatch.chdir(tmp_path)
    Path("prose.md").write_text("# Plan\n\nNo numbers here.\n")
    Path("notes.md").write_text(NOTES)
    command = fields["entry"].split()[1:] + re.findall(r"--[a-z-]+", fields["args"])
    assert napkin(*command, "prose.md")[0] == 0  # no claims: passes
    status, out, _ = napkin(*command, "prose.md", "notes.md")
    assert status == 1 and "bits vs bytes" in out  # the slip fails the commit
