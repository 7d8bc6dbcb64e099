"""The variant matcher's lexicon: sorted text sources (``<lang>.forms.tsv``, ``<lang>.links.tsv``)
and the SQLite tables built from them (``tables.table_path``; the matcher is
``dichotomy_widget.words``; see README.md)."""

from .tables import LANGUAGES, prepare, table_path

__all__ = ["LANGUAGES", "prepare", "table_path"]
