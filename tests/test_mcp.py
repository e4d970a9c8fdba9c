"""`napkin mcp` (issue 48 §1) driven as an assistant drives it: the MCP SDK's own client over
stdio, a server process per test, only the tools it lists.

The SDK (`mcp`, the `[mcp]` extra) is in `[dev]`; without it these tests skip, saying so.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip(
    "mcp", reason="the MCP SDK is not installed (pip install 'napkinmath[mcp]')"
)

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

#: W12 as an assistant asks it
W12 = {
    "targets": ["n_gpus"],
    "givens": {"params": "7B", "tokens": "1T", "train_time": "3 weeks", "mfu": "0.4"},
    "gpu": "H100-SXM",
}


def talk(session: Callable[[Client], Awaitable[Any]], *args: str) -> Any:
    """Start `napkin mcp ARGS` and run `session` with a client connected to it."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "napkinmath.cli", "mcp", *args]
    )

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            return await session(client)

    return asyncio.run(run())


def test_an_assistant_answers_the_readme_tour_with_the_tools_alone():
    async def session(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        found = {
            "tools": {t.name: t for t in listed.tools},
            "names": await client.call_tool("vars", {"query": "gpus"}),
            "w12": await client.call_tool("solve", W12),
            "range": await client.call_tool(
                "solve",
                {
                    "targets": ["train_time"],
                    "givens": {"train_compute": "6.35e24 FLOP", "n_gpus": 16384, "mfu": "0.3..0.5"},
                    "gpu": "H100",
                },
            ),
            "check": await client.call_tool(
                "check", {"expression": "140 GB / (400 Gb/s)", "claim": "0.35 s"}
            ),
            "inline": await client.call_tool(
                "check", {"expression": "140 GB / (400 Gb/s) = 0.35 s"}
            ),
            "formulas": await client.call_tool("formulas", {"query": "fleet"}),
        }
        found["guide"] = await client.read_resource("napkinmath://guide")
        return found

    got = talk(session)
    tools = got["tools"]
    assert set(tools) == {"solve", "check", "audit", "optimize", "explain", "vars", "formulas"}
    for tool in tools.values():  # each argument described by a JSON schema
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.description
    assert tools["solve"].input_schema["required"] == ["targets"]
    assert "n_gpus" in got["names"].content[0].text

    w12 = got["w12"]
    assert not w12.is_error
    document = w12.structured_content["document"]
    assert document["schema"] == "napkinmath-answer/1"
    assert document["targets"]["n_gpus"]["value"] == pytest.approx(58.48445717066, rel=1e-9)
    text = w12.content[0].text  # the derivation, as the CLI prints it
    assert text.startswith("n_gpus = 58.48 GPU") and "Derivation:" in text and "H100-SXM" in text

    span = got["range"].structured_content["document"]
    assert span["schema"] == "napkinmath-range/1"
    assert got["range"].content[0].text.startswith("train_time = 9.067 … 15.11 day")

    for key in ("check", "inline"):
        checked = got[key]
        assert not checked.is_error
        assert checked.structured_content["document"]["status"] == "disagree"
        assert "bits vs bytes" in checked.content[0].text
        assert "Corrected claim: 0.35 s × 8 = 2.8 s" in checked.content[0].text
    assert "fleet_equation" in got["formulas"].content[0].text
    assert "vars" in got["guide"].contents[0].text


def test_audit_optimize_and_explain():
    document = (
        "# Sizing notes\n\n"
        "Checkpoint over the NIC: 140 GB / (400 Gb/s) = 0.35 s\n"
        "Weights: 70e9 * 2 B = 140 GB\n"
    )

    async def session(client: Client) -> dict[str, Any]:
        return {
            "audit": await client.call_tool("audit", {"text": document, "kind": "text"}),
            "optimize": await client.call_tool(
                "optimize",
                {
                    "objective": "n_gpus",
                    "over": {"n_gpus": [16, 32, 64, 128]},
                    "require": ["train_time <= 3 weeks"],
                    "givens": {"params": "7B", "tokens": "1T", "mfu": "0.4"},
                    "gpu": "H100-SXM",
                },
            ),
            "explain": await client.call_tool(
                "explain",
                {
                    "targets": ["train_time"],
                    "givens": {
                        "params": "7B",
                        "tokens": "1T",
                        "n_gpus": 64,
                        "mfu": "0.4",
                        "train_compute": "4.2e21 FLOP",
                    },
                    "gpu": "H100-SXM",
                },
            ),
        }

    got = talk(session)
    audit = got["audit"].structured_content["document"]
    assert audit["schema"] == "napkinmath-claims/1"
    assert audit["summary"]["disagree"] == 1 and audit["summary"]["agree"] == 1
    assert "the given text" in got["audit"].content[0].text
    assert "/tmp" not in got["audit"].content[0].text  # no trace of the server's own files
    best = got["optimize"].structured_content["document"]
    assert best["schema"] == "napkinmath-optimum/1"
    assert "Best: n_gpus = 64 GPU" in got["optimize"].content[0].text
    odd = got["explain"].content[0].text
    assert "train_compute" in odd and "10" in odd  # 4.2e21 against 6·7B·1T = 4.2e22


def test_errors_are_tool_errors_in_napkinmaths_words():
    async def session(client: Client) -> dict[str, Any]:
        return {
            "unknown": await client.call_tool("solve", {"targets": ["n_gpu"], "givens": {}}),
            "unit": await client.call_tool(
                "solve", {"targets": ["n_gpus"], "givens": {"params": "7 bananas"}}
            ),
            "shape": await client.call_tool("solve", {"targets": "n_gpus"}),
            "huge": await client.call_tool("audit", {"text": "x = 1\n" * 1_000_000}),
            "file": await client.call_tool("audit", {"path": "/etc/passwd", "kind": "text"}),
        }

    got = talk(session)
    for name, reply in got.items():
        assert reply.is_error, name
        assert "Traceback" not in reply.content[0].text, name
    assert "n_gpu" in got["unknown"].content[0].text and "n_gpus" in got["unknown"].content[0].text
    assert "unknown unit 'bananas'" in got["unit"].content[0].text
    assert "6,000,000" in got["huge"].content[0].text or "at most" in got["huge"].content[0].text
    assert "reads no file" in got["file"].content[0].text


def test_two_calls_at_once_each_get_their_own_answer():
    other = {
        "targets": ["train_time"],
        "givens": {"params": "70B", "tokens": "15T", "n_gpus": 16384, "mfu": "0.38"},
        "gpu": "H100-SXM",
    }

    async def session(client: Client) -> list[Any]:
        return list(
            await asyncio.gather(
                client.call_tool("solve", W12),
                client.call_tool("solve", other),
                client.call_tool("solve", W12),
            )
        )

    first, second, third = talk(session)
    assert first.structured_content == third.structured_content
    assert first.structured_content["document"]["targets"]["n_gpus"]["text"] == "58.48 GPU"
    days = second.structured_content["document"]["targets"]["train_time"]
    # 6 · 70e9 · 15e12 / (16384 · 989.5e12 · 0.38) s = 1.0227e6 s = 11.84 days
    assert days["value"] * (1 if days["unit"] == "s" else 86400) == pytest.approx(
        6 * 70e9 * 15e12 / (16384 * 989.5e12 * 0.38), rel=1e-3
    )


def test_a_file_is_read_only_inside_the_root(tmp_path: Path):
    inside = tmp_path / "notes.md"
    inside.write_text("Weights: 70e9 * 2 B = 140 GB\n")
    (tmp_path.parent / "outside.md").write_text("1 + 1 = 2\n")

    async def session(client: Client) -> dict[str, Any]:
        return {
            "inside": await client.call_tool("audit", {"path": "notes.md", "kind": "text"}),
            "outside": await client.call_tool("audit", {"path": "../outside.md", "kind": "text"}),
        }

    got = talk(session, "--root", str(tmp_path))
    assert not got["inside"].is_error
    assert got["inside"].structured_content["document"]["summary"]["agree"] == 1
    assert got["outside"].is_error
    assert "outside the folder" in got["outside"].content[0].text


def test_the_documents_are_the_clis_and_validate_against_its_schemas():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")
    schemas = Path(__file__).resolve().parent.parent / "engine" / "schema"

    async def session(client: Client) -> list[Any]:
        return [
            await client.call_tool("solve", W12),
            await client.call_tool("check", {"expression": "140 GB / (400 Gb/s) = 0.35 s"}),
            await client.call_tool("audit", {"text": "Weights: 70e9 * 2 B = 140 GB\n"}),
            await client.call_tool(
                "optimize",
                {
                    "objective": "n_gpus",
                    "over": {"n_gpus": [32, 64, 128]},
                    "require": ["train_time <= 3 weeks"],
                    "givens": {"params": "7B", "tokens": "1T", "mfu": "0.4"},
                    "gpu": "H100-SXM",
                },
            ),
            await client.call_tool("vars", {"query": "mfu"}),
            await client.call_tool("formulas", {"query": "fleet"}),
        ]

    for reply in talk(session):
        assert not reply.is_error, reply.content[0].text
        text = json.dumps(reply.structured_content, allow_nan=False)  # finite numbers only
        document = json.loads(text)["document"]
        kind = document["schema"].removeprefix("napkinmath-").removesuffix("/1")
        schema = json.loads((schemas / f"{kind}.schema.json").read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(schema).validate(document)
