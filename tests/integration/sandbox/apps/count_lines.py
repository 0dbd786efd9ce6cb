"""Test job: count the lines of the input paths (comma-separated, second to last argument) and write the count as
one text line to the output path (last argument)."""

import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("count-lines").getOrCreate()
inputs, output = sys.argv[-2].split(","), sys.argv[-1]
count = spark.read.text(inputs).count()
spark.createDataFrame([(str(count),)], "value string").coalesce(1).write.mode("overwrite").text(output)
spark.stop()
