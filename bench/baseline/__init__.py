"""Baselines the benchmarks measure the service against: installed only with the bench settings
(POSTFORGE_BENCH_VIEWS=1), never in production."""
