"""Is a table feed's partition in its metastore? The Airflow side's one question to a Hive metastore, asked over
its thrift API (``hmsclient``, the client Airflow's Hive provider uses), so sensors and triggers need no Spark.

A partition marker (:class:`falcon_airflow.core.tables.PartitionMarker`) names every partition key the feed's
table URI names. When that is every key of the table, the partition is fetched by its values; when the URI names
only some (a table partitioned further than the feed), any partition matching them counts, as Falcon's HCatalog
check did.
"""

from __future__ import annotations

from typing import Any

from falcon_airflow.core.tables import PartitionMarker
from falcon_airflow.instances.storage import StorageError

TIMEOUT_MS = 30_000
"""A metastore that does not answer within this fails the check instead of hanging the triggerer's thread."""


class MetastoreError(StorageError):
    """The metastore cannot be reached, or does not know the table: the wait fails with this message (and is tried
    again as the task's retries say), as for a file system that cannot be reached."""


def _client(host: str, port: int) -> Any:
    from hmsclient.hmsclient import HMSClient
    from thrift.protocol import TBinaryProtocol
    from thrift.transport import TSocket, TTransport

    socket = TSocket.TSocket(host, port)
    socket.setTimeout(TIMEOUT_MS)
    protocol = TBinaryProtocol.TBinaryProtocol(TTransport.TBufferedTransport(socket))
    return HMSClient(iprot=protocol)


def partition_exists(marker: str) -> bool:
    """Whether the partition ``marker`` names exists; :class:`MetastoreError` when the metastore cannot say."""
    from hmsclient.genthrift.hive_metastore.ttypes import NoSuchObjectException
    from thrift.Thrift import TException

    partition = PartitionMarker.parse(marker)
    host, port = partition.host_port
    table = partition.table
    wanted = dict(table.partitions)
    try:
        with _client(host, port) as client:
            try:
                keys = [column.name for column in client.get_table(table.database, table.table).partitionKeys]
            except NoSuchObjectException:
                raise MetastoreError(f"table {table.database}.{table.table} is not in the metastore "
                                     f"{partition.metastore}") from None
            unknown = sorted(set(wanted) - set(keys))
            if unknown:
                raise MetastoreError(f"table {table.database}.{table.table} has no partition key "
                                     f"{', '.join(unknown)} (its keys: {', '.join(keys) or 'none'})")
            values = [wanted.get(key, "") for key in keys]  # "" matches any value of a key the feed leaves open
            if all(key in wanted for key in keys):
                try:
                    client.get_partition(table.database, table.table, values)
                except NoSuchObjectException:
                    return False
                return True
            return bool(client.get_partition_names_ps(table.database, table.table, values, 1))
    except TException as problem:
        raise MetastoreError(f"metastore {partition.metastore} did not answer for {marker}: "
                             f"{type(problem).__name__}: {problem}") from None
    except OSError as problem:
        raise MetastoreError(f"metastore {partition.metastore} cannot be reached: {problem}") from None
