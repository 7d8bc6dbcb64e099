"""Shipped lexicon tables and the affix rules used to build them (see README.md)."""
