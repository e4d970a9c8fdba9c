"""Text in and out: what users type (the safe expression grammar, its evaluation with units,
given values) and how values are written back (`numbers`, `sources`, `latex`, `visible`)."""
