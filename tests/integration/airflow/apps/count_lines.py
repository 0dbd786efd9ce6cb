"""Test job: write, for every input path given as argument 1 (comma-separated), its line count, to argument 2."""

import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("count-lines").getOrCreate()
inputs, output = sys.argv[1].split(","), sys.argv[2]
conf = spark.sparkContext.getConf()
rows = [(path, spark.read.text(path).count(), conf.get("spark.falcon.nominalTime", "?"),
         conf.get("spark.falcon.tag", "?"))
        for path in inputs]
spark.createDataFrame(rows, "path string, lines long, nominal string, tag string").coalesce(1) \
    .write.mode("overwrite").json(output)
spark.stop()
