"""Checking other people's math: expressions, named confusions, and tables of claims."""
