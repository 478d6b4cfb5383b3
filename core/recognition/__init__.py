"""Recognition: at most one explicit agreement intent in a turn (R1, R4, R8, R11).

The turn is folded, split into sentences, and each sentence is read against the phrases.
"""
