"""What users type: the safe expression grammar, its evaluation with units, and given values."""
