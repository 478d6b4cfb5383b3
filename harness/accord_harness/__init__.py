"""accord's laboratory: what tests, chaos runs and benchmarks drive the product with.

Not shipped: the wheel and the image hold the product packages only. Installed in the
dev environment as a uv workspace member (see the root pyproject).
"""
