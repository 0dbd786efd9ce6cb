"""Example job: write one hour of synthetic click events (CSV) to the output path it is given.

Arguments, in Falcon's order for a process without inputs: the output instance path. The nominal time and the
process properties arrive as Spark conf (``spark.falcon.nominalTime``, ``spark.falcon.eventsPerHour``).
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main(output_path: str) -> None:
    spark = SparkSession.builder.appName("generate-clicks").getOrCreate()
    conf = spark.sparkContext.getConf()
    events = int(conf.get("spark.falcon.eventsPerHour", "5000"))
    nominal = conf.get("spark.falcon.nominalTime", "2026-01-01T00:00Z")
    pages = F.array(*[F.lit(page) for page in ("/", "/search", "/cart", "/checkout", "/help")])
    clicks = (
        spark.range(events)
        .withColumn("event_time", F.lit(nominal))
        .withColumn("user_id", (F.col("id") * 7919 % 997).cast("int"))
        .withColumn("page", F.element_at(pages, (F.col("id") % 5 + 1).cast("int")))
        .withColumn("duration_ms", (F.col("id") * 31 % 5000).cast("int"))
        .drop("id")
    )
    clicks.coalesce(1).write.mode("overwrite").option("header", True).csv(output_path)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
