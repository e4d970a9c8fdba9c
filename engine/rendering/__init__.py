"""Answers and how they read: the Result and its text, Markdown, LaTeX and JSON derivations."""
