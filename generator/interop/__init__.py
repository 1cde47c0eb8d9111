"""Exchange with other forecasting benchmarks.

- ``forecastbench``: ForecastBench's question, resolution and forecast sets in, question sets out
"""
