"""Exchange with other forecasting benchmarks (today: ForecastBench)."""
