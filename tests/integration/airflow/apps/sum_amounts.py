"""Test job: the total amount per user and country of the input instances (CSV with the header user,country,amount),
written as Parquet to argument 2. Argument 1: the input instance paths, comma-separated."""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("sum-amounts").getOrCreate()
inputs, output = sys.argv[1].split(","), sys.argv[2]
events = spark.read.option("header", True).csv(inputs)
totals = (events.where(F.col("amount").cast("long") > 0)
          .groupBy("user", F.upper("country").alias("country"))
          .agg(F.sum(F.col("amount").cast("long")).alias("total")))
totals.coalesce(1).write.mode("overwrite").parquet(output)
spark.stop()
