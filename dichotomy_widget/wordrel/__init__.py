"""Shipped word-relation tables (data only; read by dichotomy_widget.words.relations; see README.md)."""
