"""Example job: count the clicks of an hour per page.

Arguments, in Falcon's order: the input instance paths (comma-separated), then the output instance path.
The process property ``minClicks`` arrives as Spark conf ``spark.falcon.minClicks``.
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main(input_paths: str, output_path: str) -> None:
    spark = SparkSession.builder.appName("count-clicks").getOrCreate()
    min_clicks = int(spark.sparkContext.getConf().get("spark.falcon.minClicks", "1"))
    clicks = spark.read.option("header", True).csv(input_paths.split(","))
    counts = (
        clicks.groupBy("page")
        .agg(F.count("*").alias("clicks"), F.countDistinct("user_id").alias("users"),
             F.avg(F.col("duration_ms").cast("int")).alias("avg_duration_ms"))
        .where(F.col("clicks") >= min_clicks)
    )
    counts.coalesce(1).write.mode("overwrite").parquet(output_path)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
