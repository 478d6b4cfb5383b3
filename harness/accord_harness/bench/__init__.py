"""`accord bench`: the end-to-end performance harness (DESIGN section 5).

One run against one Redis: a realistic workload (workload.py), the bare redis-py loop
as the baseline and FastStream's batch subscriber alone (loops.py), real worker
processes end to end with exactly-once checked against the oracle (endtoend.py), and
the recognizer and deadline micro-benchmarks (micro.py). run.py puts them together;
docs/performance.md has the figures and the commands.
"""
