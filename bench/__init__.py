"""Benchmarks that print figures (not tests): `python -m bench.ingest` measures ingestion, see bench/README.md."""
