"""Is a table feed's partition in its metastore? The Airflow side's one question to a Hive metastore, asked over
its thrift API (``hmsclient``, the client Airflow's Hive provider uses), so sensors and triggers need no Spark.

A partition marker (:class:`falcon_airflow.core.tables.PartitionMarker`) names every partition key the feed's
table URI names. When that is every key of the table, the partition is fetched by its values; when the URI names
only some (a table partitioned further than the feed), any partition matching them counts, as Falcon's HCatalog
check did.

A cluster whose properties say ``hive.metastore.sasl.enabled=true`` names its metastore's service principal
(``hive.metastore.kerberos.principal``) in the marker; the check then logs in to it with SASL GSSAPI as the Airflow
service principal (``AIRFLOW__KERBEROS__PRINCIPAL`` and ``AIRFLOW__KERBEROS__KEYTAB``, as WebHDFS and spark-submit
do), with the credentials WebHDFS uses too: a ticket got from the keytab, kept in the process's memory and got again
from the keytab when it expires.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from falcon_airflow.core.tables import METASTORE_PRINCIPAL, METASTORE_SASL, PartitionMarker
from falcon_airflow.instances.storage import StorageError
from falcon_airflow.kerberos_login import KerberosLoginError, keytab_credentials, service_login

TIMEOUT_MS = 30_000
"""A metastore that does not answer within this fails the check instead of hanging the triggerer's thread."""


class MetastoreError(StorageError):
    """The metastore cannot be reached, or does not know the table: the wait fails with this message (and is tried
    again as the task's retries say), as for a file system that cannot be reached."""


@contextmanager
def _client(partition: PartitionMarker) -> Iterator[Any]:
    """An open client of the partition's metastore: plain thrift, or SASL GSSAPI when the marker names the
    metastore's principal."""
    from hmsclient.hmsclient import HMSClient
    from thrift.protocol import TBinaryProtocol
    from thrift.transport import TSocket, TTransport

    host, port = partition.host_port
    socket = TSocket.TSocket(host, port)
    socket.setTimeout(TIMEOUT_MS)
    if not partition.principal:
        with HMSClient(iprot=TBinaryProtocol.TBinaryProtocol(TTransport.TBufferedTransport(socket))) as client:
            yield client
        return
    credentials, who = _kerberos_credentials(partition)
    from thrift.Thrift import TException
    from thrift_sasl import TSaslClientTransport

    from falcon_airflow.instances.sasl_gssapi import MECHANISM, GssapiSaslClient, server_principal

    service = server_principal(partition.principal, host)
    transport = TSaslClientTransport(lambda: GssapiSaslClient(service, credentials), MECHANISM, socket)
    client = HMSClient(iprot=TBinaryProtocol.TBinaryProtocol(transport))
    try:
        transport.open()
    except TException as problem:
        raise MetastoreError(f"metastore {partition.metastore} refused the Kerberos (SASL GSSAPI) login as {who} "
                             f"to its service principal {service}: {problem}") from None
    try:
        yield client
    finally:
        transport.close()


def _kerberos_credentials(partition: PartitionMarker) -> tuple[Any, str]:
    """The Airflow service principal's GSS-API credentials (got from its keytab, kept in this process's memory and
    renewed from the keytab: :func:`~falcon_airflow.kerberos_login.keytab_credentials`), with the login's
    description for messages."""
    try:
        login = service_login()
        return keytab_credentials(login, f"the metastore {partition.metastore}"), login.describe()
    except KerberosLoginError as problem:
        raise MetastoreError(f"metastore {partition.metastore} takes Kerberos (SASL) clients only (the cluster says "
                             f"{METASTORE_SASL}=true, {METASTORE_PRINCIPAL}={partition.principal}): "
                             f"{problem}") from None


def partition_exists(marker: str) -> bool:
    """Whether the partition ``marker`` names exists; :class:`MetastoreError` when the metastore cannot say."""
    from hmsclient.genthrift.hive_metastore.ttypes import NoSuchObjectException
    from thrift.Thrift import TException

    partition = PartitionMarker.parse(marker)
    table = partition.table
    wanted = dict(table.partitions)
    try:
        with _client(partition) as client:
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
        # A Kerberized metastore closes a connection that does not start with SASL: say what the cluster may lack.
        hint = "" if partition.principal else (f" (a metastore that takes Kerberos clients only closes plain "
                                               f"connections: the cluster entity then says {METASTORE_SASL}=true "
                                               f"and names {METASTORE_PRINCIPAL})")
        raise MetastoreError(f"metastore {partition.metastore} did not answer for {marker}: "
                             f"{type(problem).__name__}: {problem}{hint}") from None
    except OSError as problem:
        raise MetastoreError(f"metastore {partition.metastore} cannot be reached: {problem}") from None
