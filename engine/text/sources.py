"""Numbered source citations: long citations leave the lines that use them for a list at the end.

    sources = Sources()
    sources.cite("Kaplan et al. 2020, Scaling Laws ..., arXiv:2001.08361")   # '[1]'
    sources.cite("definition")                                               # '[definition]'
    sources.entries()    # [(1, 'Kaplan et al. 2020, ...')]

Numbers follow the order of first citation, so the same answer always numbers the same way.
"""

from __future__ import annotations

#: citations at most this long stay inline ("definition", "assumption")
SHORT = 40


class Sources:
    """The citations of one rendering, numbered in the order they are first cited."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def number(self, source: str) -> int | None:
        """The number of a long citation (given on first use); None for a short one."""
        source = source.strip()
        if len(source) <= SHORT:
            return None
        return self._numbers.setdefault(source, len(self._numbers) + 1)

    def cite(self, *sources: str) -> str:
        """'[1, 2]' for long citations, short ones inline: '[definition; 3]'."""
        parts: list[str] = []
        for source in dict.fromkeys(s.strip() for s in sources if s.strip()):
            n = self.number(source)
            parts.append(source if n is None else str(n))
        return f"[{', '.join(parts)}]" if parts else ""

    def entries(self) -> list[tuple[int, str]]:
        return [(n, s) for s, n in self._numbers.items()]

    def __bool__(self) -> bool:
        return bool(self._numbers)


def record_source(record: str | None, note: str) -> tuple[str, str]:
    """A record value's note split into (what it is, where it comes from).

    'H100-SXM: dense BF16; NVIDIA H100 datasheet (2023-06)' of `record` 'H100-SXM' ->
    ('H100-SXM: dense BF16', 'NVIDIA H100 datasheet (2023-06)'), found by matching the
    record's own sources and dates; (note, '') for a value of no record (`record` None)."""
    from napkinmath.errors import NapkinError

    if record is None:
        return note, ""
    try:
        from napkinmath.text.references import record as get_record

        found = get_record(record)
    except NapkinError:  # a record no longer in force: a plain note
        return note, ""
    cited = sorted(
        {f"{v.source} ({v.date})" if v.date else v.source for v in found.values.values()},
        key=len,
        reverse=True,
    )
    for citation in cited:
        at = note.rfind(citation)
        if at > 0:
            before = note[:at].rstrip().rstrip(";,:").rstrip()
            after = note[at + len(citation) :].strip()
            return (f"{before} {after}".strip() if after else before), citation
    return note, ""
