"""entity -lookup (which feed owns a path or a table partition) and entity -updateClusterDependents."""

from __future__ import annotations

from tests.builders import cluster, feed

from .helpers import Kit


def test_lookup_names_the_feed_cluster_and_instance_of_a_path(pipeline: Kit) -> None:
    code, document = pipeline.json("entity", "-lookup", "-type", "feed", "-path", "/logs/2026/05/01/03/part-0.csv")
    assert code == 0
    assert document["elements"] == [{"feedName": "logs", "clusterName": "east", "type": "DATA",
                                     "location": "/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}",
                                     "instance": "2026-05-01T03:00Z"}]
    # the same data as a URI on the cluster's storage
    code, out, _ = pipeline.run("entity", "-lookup", "-type", "feed", "-path",
                                "file:///tmp/falcon-airflow-unit/west/counts/2026/05/01/04")
    assert code == 0
    assert out.strip() == ("counts  cluster west  DATA  instance 2026-05-01T04:00Z  "
                           "(/counts/${YEAR}/${MONTH}/${DAY}/${HOUR})")
    code, document = pipeline.json("entity", "-lookup", "-type", "feed", "-path",
                                   "/tmp/falcon-airflow-unit/east/logs/2026/05/01/03")  # a local path of it
    assert [(item["feedName"], item["instance"]) for item in document["elements"]] == [("logs", "2026-05-01T03:00Z")]


def test_lookup_of_a_path_no_feed_owns(pipeline: Kit) -> None:
    for path in ("/logs/2026/05/01/031", "/elsewhere/2026/05/01/03", "/logs"):
        code, document = pipeline.json("entity", "-lookup", "-type", "feed", "-path", path)
        assert (code, document["elements"]) == (0, []), path
    code, _, err = pipeline.run("entity", "-lookup", "-type", "process", "-path", "/logs")
    assert code == 2 and "only supported for feeds" in err
    code, _, err = pipeline.run("entity", "-lookup", "-type", "feed")
    assert code == 2 and "path" in err


def test_update_cluster_dependents_touches_every_entity_on_the_cluster(pipeline: Kit) -> None:
    code, document = pipeline.json("entity", "-updateClusterDependents", "-cluster", "west")
    assert code == 0
    assert [(item["type"], item["name"]) for item in document["entities"]] == [("feed", "counts")]
    code, document = pipeline.json("entity", "-updateClusterDependents", "-cluster", "east")
    assert [(item["type"], item["name"]) for item in document["entities"]] == [
        ("feed", "counts"), ("feed", "logs"), ("process", "count")]
    assert "falcon.process.count.east" in document["entities"][2]["dags"]
    code, _, err = pipeline.run("entity", "-updateClusterDependents", "-cluster", "nowhere")
    assert code == 1 and "nowhere (cluster) not found" in err


def test_lookup_of_a_table_partition_names_the_table_feed_and_its_instance(kit: Kit) -> None:
    kit.write("clusters/hive.xml", cluster(
        "hive", "file:///tmp/falcon-airflow-unit/hive",
        interfaces='<interface type="registry" endpoint="thrift://127.0.0.1:9083" version="2.3"/>'))
    kit.write("feeds/sales.xml", feed("sales", clusters=(("hive", "source"),),
                                      table="catalog:shop:sales#ds=${YEAR}${MONTH}${DAY}${HOUR};region=us"))
    kit.write("feeds/sales-eu.xml", feed("sales-eu", clusters=(("hive", "source"),),
                                         table="catalog:shop:sales#ds=${YEAR}${MONTH}${DAY}${HOUR};region=eu"))

    code, document = kit.json("entity", "-lookup", "-type", "feed", "-path",
                              "catalog:SHOP:Sales#ds=2026050103;region=us")
    assert code == 0
    assert document["elements"] == [{"feedName": "sales", "clusterName": "hive", "type": "TABLE",
                                     "location": "catalog:shop:sales#ds=${YEAR}${MONTH}${DAY}${HOUR};region=us",
                                     "instance": "2026-05-01T03:00Z"}]
    # the table alone: every feed stored in it
    code, document = kit.json("entity", "-lookup", "-type", "feed", "-path", "catalog:shop:sales")
    assert sorted((item["feedName"], item["instance"]) for item in document["elements"]) == [
        ("sales", None), ("sales-eu", None)]
    # not an instance: another region, a partition value off the grid, another table
    for path in ("catalog:shop:sales#ds=2026050103;region=fr", "catalog:shop:sales#ds=20260501031;region=us",
                 "catalog:shop:refunds#ds=2026050103;region=us"):
        code, document = kit.json("entity", "-lookup", "-type", "feed", "-path", path)
        assert (code, document["elements"]) == (0, []), path
