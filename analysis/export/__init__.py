"""Tables and trackers outside twinbench: the collected Parquet/CSV table, MLflow."""
