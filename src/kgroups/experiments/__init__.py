"""Experiments of the papers, one module per table or figure.

Each module exposes ``run(out, trials=None, quick=False, seed=0) -> str``: it
writes a Markdown table (and PNG figures) under ``out`` and returns the table.
"""
