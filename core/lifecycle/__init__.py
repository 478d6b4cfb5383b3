"""The agreement lifecycle: records, acceptance, targeting, delivery, reducer, view.

Rules R2-R13 and R16-R18; the only place where agreement state changes.
"""
