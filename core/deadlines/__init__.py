"""Deadlines: find the wording in proposal terms, parse it into a spec, resolve the instant (R9)."""

from core.native import search_path

# The compiled build of this package, when it is current (core/native.py).
__path__ = search_path(__name__, __path__)
