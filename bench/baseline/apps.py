from django.apps import AppConfig


class BenchBaselineConfig(AppConfig):
    name = "bench.baseline"
    label = "bench_baseline"
