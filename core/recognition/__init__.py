"""Recognition: at most one explicit agreement intent in a turn (R1, R4, R8, R11).

The turn is folded, split into sentences, and each sentence is read against the phrases.
"""

from core.native import search_path

# The compiled build of this package, when it is current (core/native.py).
__path__ = search_path(__name__, __path__)
