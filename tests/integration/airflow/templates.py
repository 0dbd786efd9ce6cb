"""Entity XML shared by the Airflow integration tests: a cluster whose storage is a local folder."""

CLUSTER = """\
<cluster name="{name}" colo="{name}" xmlns="uri:falcon:cluster:0.1">
  <interfaces>
    <interface type="readonly" endpoint="file://{storage}" version="1"/>
    <interface type="write" endpoint="file://{storage}" version="1"/>
    <interface type="spark" endpoint="local[2]" version="4"/>
  </interfaces>
  <locations><location name="staging" path="/staging"/></locations>
</cluster>
"""
