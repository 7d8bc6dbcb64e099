"""Shipped lexicon tables (data only; the matcher is dichotomy_widget.words; see README.md)."""
