"""The vocabulary formulas are written in (`declare`: variables, formulas, constraints,
settings), their evaluation trees (`tree`), print layouts (`print_layout`) and stored form
(`stored`). The library as loaded, and lookup by name, is `napkinmath.catalog`."""
