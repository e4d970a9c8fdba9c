"""Planning through the formula graph, rearranging formulas, and solving on floats."""
