"""Feed replication: copy one feed instance from a source cluster to a target cluster — Falcon's ``FeedReplicator``
(DistCp), made atomic.

Command line (``spark-submit --py-files <jobs zip> entry/replication.py ARGS``)::

    --feed NAME --source-cluster NAME --target-cluster NAME --instance yyyy-MM-ddTHH:mmZ
    --source-path URI          repeatable: the instance folder(s) on the source's read-only storage
    --target-path URI          the instance folder on the target
    --source-table URI --target-table URI   table feeds: catalog:db:table#k=v;… with resolved values
    --source-metastore thrift://HOST:PORT   table feeds: the source cluster's metastore, when it is not the one the
                               job's session uses (the target's)
    --target-storage URI       table feeds: the target cluster's file system, where a missing target table is created
    --include GLOB             relative include pattern (Falcon's FilteredCopyListing semantics: * crosses /,
                               a file is copied when its path or one of its folders matches); its leading
                               glob-free folders (US/* → US) are the unit copied and swapped, as Falcon appended
                               them to both paths, so partitions from several sources can share one instance
    --availability-flag NAME   default _SUCCESS (NA means the default); never copied, written after publishing
    --no-availability-flag     a mirror of a folder tree: every file is copied (a _SUCCESS too), no flag written
    --max-maps N               copy tasks (default 5)
    --map-bandwidth MB         at most MB megabytes per second written by each copy task (default: unlimited)
    --overwrite                copy every file again (otherwise files already identical at the target are kept)
    --remove-deleted-files     drop target files that the sources no longer have (within the include pattern)
    --preserve-times --preserve-permissions
    --executor-jvm auto|driver|launch    how copy tasks reach a JVM (below); default auto
    --staging-lease-seconds S  how long other runs leave this run's staging alone without renewal (default 600)
    --report PATH

How it copies: the driver lists the sources (bulk listings through the Hadoop FS API), then
``sc.parallelize(file lists, N).mapPartitions(copy)``. Each task compiles (once per Python worker, with Janino, the
compiler Spark uses for its generated code) a small copier class in its JVM and hands it batches of files, one
py4j call per batch of up to 64 files or 8 MiB: for every file the copier streams the source into the target
through ``FileSystem.open``/``create`` with a 128 KiB buffer, computing the CRC32 of the bytes read, then opens the
copy again and computes its CRC32 from what the target file system returns. No file content passes through Python
or the driver. Tasks of a ``local`` master run in the driver's JVM, connect to its py4j gateway and copy its Hadoop
configuration; elsewhere a task starts a private gateway JVM once per worker process
(``pyspark.java_gateway.launch_gateway``, which needs Spark's ``bin/spark-submit`` on the executor host) and gets
the driver's settings that differ from a fresh ``Configuration``. Each task keeps 4 batches in flight (threads,
each with its own py4j connection). A checksummed file system (``file://``) is used through its raw one: no
``.crc`` companions are written or verified, the job checksums every copy itself. On exactly Hadoop's raw local
file system a copy is created as ``FileUtil.createLocalTempFile`` beside its target, given the mode
``RawLocalFileSystem.create`` would give it with ``FileUtil.setPermission``, written through ``append`` and renamed
to its name: ``create`` itself sets that mode by forking ``chmod`` for every file when the native Hadoop library is
absent (as in pyspark), about 7 ms of CPU each, while ``FileUtil`` uses Java primitives whenever the group and
other bits agree. HDFS and S3A files are created with ``create``.

Atomic publish: files go to ``<target parent>/.<target name>.falcon-staging-<run token>``; the count, the total
bytes and every file's CRC32 (source stream vs read-back copy) are verified; then an existing target is renamed
aside (``.<name>.falcon-old-<run token>``), the staging folder renamed to the target with a rename that refuses an
existing target (``FileContext.rename`` without OVERWRITE: a target another run published meanwhile fails this run,
never gets the staging folder nested inside it), the published folder checked against the staged count and bytes,
the old version deleted, and only then the availability flag written. A reader sees the old complete instance, no
instance, or the new complete one. Runs of one instance may overlap (a rerun while the scheduled run copies, a
retry beside a zombie try): each run's siblings carry its own token and its lease
(``.<name>.falcon-lease-<run token>``, renewed while it lives), and a run removes only the siblings of runs that are
over - lease lapsed, or an earlier try of the same Airflow task instance - and puts back an old version such a run
left aside (``RunStaging``). A rerun completes idempotently: a target already identical to the sources is
left as it is.

Table feeds: the source partition's location comes from the catalog (``DESCRIBE FORMATTED … PARTITION``, or the
source metastore's thrift API when it is another metastore), the target is ``--target-path`` or the target table's
location plus ``k=v/…``; after publishing, the partition is registered with ``ALTER TABLE … ADD IF NOT EXISTS
PARTITION (…) LOCATION …`` (re-pointed if it existed elsewhere). A missing target table is created first as an
external table shaped like the source (columns, partition keys, storage format; ``CREATE TABLE … LIKE``, or a copy
of the source's metastore definition when the source is another metastore), at ``<target storage><target
database's location path>/<table>`` — the Hive layout, on the target cluster. Its database must exist.

Output: a one-line JSON summary on stdout (the report without ``manifest``). Report: ``{"job", "feed",
"source_cluster", "target_cluster", "instance", "sources", "target", "include", "published_folder",
"availability_flag", "recovered", "files", "bytes", "copied", "copied_bytes", "skipped", "skipped_bytes",
"kept_extra", "removed", "published", "verified", "max_maps", "tasks", "seconds", "manifest": [{"path", "bytes",
"crc32", "origin"}][, "partition"][, "created_table"]}`` — ``files``/``bytes`` describe the published folder after
the run, ``copied`` the files written from the sources, ``skipped`` those already identical at the target (not
rewritten), ``kept_extra`` target files the sources lack that were kept, ``removed`` those dropped, ``published``
whether a new version was swapped in (false for an idempotent rerun).
Exit 0 done, 1 failure (nothing published), 2 bad arguments.

The modules: ``options`` the command line, ``copier`` the copy tasks (executor side, with the Java copier
``FalconReplicationCopier.java`` shipped beside it), ``listing`` the files to copy and their spread over the tasks,
``metastore`` a second Hive metastore through its thrift API, ``replicator`` the run itself and :func:`main`.
"""
