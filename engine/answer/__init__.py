"""The answer as data, below every printer: its givens (each with the record it came from),
steps, checks, constraints and notes (`data`), the `Result` that holds them (`result`), and
which results are round-off of zero (`roundoff`).

It imports none of solving, what-if, scenario or rendering: solving and what-if build answers,
rendering and scenario print them. What an answer does with the layers above it (print
itself, a sensitivity what-if) it asks of `printers()`, a typed interface
(`napkinmath.answer.printers.Printers`) that the package root passes in.
"""
