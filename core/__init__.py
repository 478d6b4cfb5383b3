"""The functional core: recognizer, deadline resolver, lifecycle reducer, delivery adapters.

Pure functions over plain data. Nothing here does I/O, reads a clock, logs or awaits:
time arrives as an argument (an event's `ts`). Enforced by import-linter (pyproject).
"""
