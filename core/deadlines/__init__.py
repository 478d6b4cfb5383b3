"""Deadlines: find the wording in proposal terms, parse it into a spec, resolve the instant (R9)."""
