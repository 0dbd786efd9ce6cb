"""What falcon-airflow does with every element and attribute its schemas accept.

Each path of the four entity XSDs (``parsing/schemas``) and of Oozie's workflow, action and SLA schemas
(``oozie/schemas``) is either :class:`Applied` (a test shows it reach the DAGs, the jobs or a validation rule) or
:class:`Reported` (validation names it when an entity or workflow uses it, with the rule id, and says why it is not
applied). ``tests/unit/parsing/test_schema_coverage.py`` walks the XSDs and holds this table to them, the named
tests to the test tree, and every reported element to the issue its rule raises; docs/validation.md lists the
reported elements from :func:`reported_markdown`.

Paths: ``feed/clusters/cluster/@delay`` (``@`` an attribute). A key ending in ``/**`` covers the element and
everything below it (an Oozie action that cannot run is refused as a whole). Oozie paths start at
``workflow-app``; an action schema's elements hang below ``workflow-app/action/<type>``, the SLA schemas' below
``sla:info`` (allowed in ``<workflow-app>`` and in each ``<action>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from falcon_airflow.oozie.rule_ids import NOT_APPLIED_RULE as OOZIE_UNUSED_RULE
from falcon_airflow.oozie.rule_ids import UNSUPPORTED_RULE

UNUSED_RULE = "FA080"  # an entity element falcon-airflow accepts but does not apply (warning)


@dataclass(frozen=True)
class Applied:
    """Applied here; ``tests`` are ``path::function`` ids of the tests that show it."""

    tests: tuple[str, ...]


@dataclass(frozen=True)
class Reported:
    """Not applied; validation reports it with ``rule`` when it is used. ``why`` is the reason in short."""

    rule: str
    why: str


Coverage = Applied | Reported


def _applied(*tests: str) -> Applied:
    return Applied(tests)


# -- tests that show elements applied, by subject ---------------------------------------------------------------------

_SCHEMA = "tests/unit/parsing/test_schema.py::test_every_valid_document_parses_without_issues"
_DEFINITION = "tests/unit/operate/test_definition_secrets.py::test_a_definition_without_secrets_is_shown_byte_for_byte"
_TAGS = "tests/unit/compiler/test_process_specs.py::test_owner_tags_catchup_and_hive"
_ACCESS = "tests/unit/compiler/test_access.py::test_owner_and_group_reach_every_dag_and_the_roles_map_when_enabled"
_PERMISSION = "tests/unit/compiler/test_access.py::test_group_rights_follow_the_permission"
_PROPERTIES = ("tests/unit/dags/test_builder_rendering.py::"
               "test_spark_opts_properties_arguments_and_cluster_properties_verbatim")
_CLUSTER_CONF = ("tests/unit/compiler/test_cluster_conf.py::"
                 "test_hadoop_and_spark_properties_reach_spark_and_others_stay_out")
_REGISTRY = "tests/unit/compiler/test_cluster_conf.py::test_the_registry_is_the_metastore_of_jobs_on_tables_only"
_MESSAGING = "tests/unit/notifications/test_messages.py::test_the_stomp_connector_is_found_from_the_openwire_endpoint"
_MASTER = "tests/unit/compiler/test_process_specs.py::test_process_master_overrides_the_cluster"
_FEED_PATHS = "tests/unit/dags/test_builder_rendering.py::test_feed_paths_reach_every_job_verbatim"
_RETENTION = "tests/unit/compiler/test_feed_specs.py::test_retention_spec_carries_every_location_and_runs_right_away"
_LIFECYCLE = "tests/unit/compiler/test_feed_specs.py::test_lifecycle_retention_frequency"
_REPLICATION = "tests/unit/compiler/test_feed_specs.py::test_replication_window_delay_and_controls"
_REPLICATION_PARTITION = "tests/unit/instances/test_explain.py::test_replication_partition_expressions_use_each_cluster"
_TABLE_REPLICATION = ("tests/unit/compiler/test_feed_specs.py::"
                      "test_a_table_replication_knows_both_metastores_and_the_target_storage")
_FEED_SLA = ("tests/integration/airflow/test_sla_monitor.py::"
             "test_a_late_feed_instance_misses_both_slas_and_an_available_one_none")
_PROCESS_SLA = ("tests/integration/airflow/test_sla_monitor.py::"
                "test_a_process_instance_that_never_ran_misses_should_start_and_end")
_MAIL = "tests/integration/airflow/test_instance_mail.py::test_a_successful_instance_is_mailed"
_LATE = "tests/unit/compiler/test_policies_and_options.py::test_late_checks_match_falcons_rerun_policy_tests"
_LATE_RUN = ("tests/integration/airflow/test_process_dag.py::"
             "test_late_file_inside_the_cut_off_triggers_exactly_one_rerun")
_LATE_RERUN = "tests/unit/compiler/test_job_identity.py::test_a_process_and_its_late_rerun_run_as_its_owner"
_LISTED_BY_TAGS = ("tests/unit/operate/test_entity_tags.py::"
                   "test_list_chooses_clusters_datasources_feeds_and_processes_by_their_tags")
_SPARK_NAME = ("tests/unit/dags/test_builder_rendering.py::"
               "test_an_instance_end_names_the_spark_application_as_written")
_LINEAGE_FACTS = "tests/unit/lineage/test_facets.py::test_compiled_lineage_facts"
_FLAG = "tests/unit/instances/test_storage.py::test_flags_sizes_and_existence"
_ASSETS = ("tests/unit/notifications/test_assets.py::"
           "test_a_feed_is_named_and_identified_by_its_logical_dataset_in_the_falcon_feed_group")
_TIMETABLE = "tests/unit/provider/scheduling/test_timetables.py::test_hourly_instances_from_validity_start_with_catchup"
_DST = "tests/unit/provider/scheduling/test_timetables.py::test_days_keep_local_midnight_across_dst"
_NOTHING_AFTER = "tests/unit/provider/scheduling/test_timetables.py::test_nothing_after_validity"
_IMPORT = "tests/unit/compiler/test_transfer_specs.py::test_import_and_export_dags_of_a_feed"
_IMPORT_RUN = ("tests/integration/airflow/test_import_dag.py::"
               "test_import_dag_publishes_the_filtered_snapshot_and_reports_its_columns")
_IMPORT_ARGUMENTS = ("tests/unit/compiler/test_transfer_specs.py::"
                     "test_an_import_argument_the_job_cannot_honour_is_an_error")
_STORAGE_FORMAT = "tests/unit/compiler/test_transfer_specs.py::test_storage_format_follows_the_schema_provider"
_JDBC = "tests/unit/compiler/test_transfer_specs.py::test_jdbc_urls"
_DATASOURCE_URL = ("tests/unit/dags/test_builder_rendering.py::"
                   "test_datasource_url_and_table_reach_the_transfer_jobs_verbatim")
_CREDENTIAL = "tests/unit/validation/test_datasource_rules.py::test_broken_datasource_reports_the_rule"
_PASSWORD_FILE = "tests/unit/provider/operators/test_database.py::test_a_password_file_outside_the_roots_is_refused"
_KEYSTORE = "tests/unit/provider/operators/test_database.py::test_a_keystore_under_the_roots_is_left_to_the_job"
_ALIAS = "tests/unit/provider/operators/test_database.py::test_an_allowed_connection_gives_its_login_and_password"
_PASSWORD_TEXT = ("tests/unit/dags/test_store_layout.py::"
                  "test_a_stored_datasource_s_password_text_is_read_from_the_revision_s_layout")
_DRIVER_CLASS = ("tests/unit/compiler/test_transfer_specs.py::"
                 "test_an_unusable_datasource_compiles_no_transfer_and_says_why")
_THROTTLE = "tests/unit/compiler/test_process_specs.py::test_explicit_timeout_parallel_order_retry"
_OOZIE_CONTROLS = ("tests/integration/scheduler/test_oozie_process_controls.py::"
                   "test_parallel_lifo_retry_and_late_rerun_under_the_scheduler")
_OOZIE_GATE = ("tests/unit/dags/test_builder_oozie_controls.py::"
               "test_the_gate_bounds_the_workflow_group_in_the_entitys_order")
_OOZIE_RETRY = ("tests/unit/dags/test_builder_oozie_controls.py::"
                "test_a_failed_workflow_is_retried_as_a_whole_and_its_actions_by_their_own_retry_max")
_OOZIE_LATE = "tests/unit/dags/test_builder_oozie_controls.py::test_late_data_runs_the_whole_instance_again"
_LIFO = "tests/unit/provider/scheduling/test_priority.py::test_fifo_prefers_older_and_lifo_newer_instances"
_LAST_ONLY = "tests/unit/provider/operators/test_ordering.py::test_last_only_skips_an_instance_whose_successor_is_due"
_TIMEOUT = "tests/unit/compiler/test_process_specs.py::test_default_timeout_has_a_30_minute_floor_and_sets_the_throttle"
_RETRY = "tests/unit/compiler/test_policies_and_options.py::test_retry_waits_match_falcons_rerun_policy_tests"
_ARGUMENTS = "tests/unit/compiler/test_process_specs.py::test_workflow_arguments_follow_falcons_order"
_TABLE_IO = ("tests/unit/compiler/test_process_specs.py::"
             "test_table_inputs_and_outputs_pass_falcons_catalog_arguments_and_properties")
_RUN = "tests/integration/airflow/test_process_dag.py::test_instance_with_real_input_runs_its_spark_job"
_INPUT_PARTITION = "tests/unit/instances/test_mapping.py::test_input_partition_is_a_sub_path"
_OPTIONAL = "tests/unit/compiler/test_process_specs.py::test_workflow_arguments_follow_falcons_order"
_APPLICATION = "tests/unit/compiler/test_process_specs.py::test_application_relative_to_the_entities_folder"
_LIB = "tests/unit/compiler/test_process_specs.py::test_the_workflow_lib_reaches_spark_submit"
_SPARK_OPTS = "tests/unit/compiler/test_policies_and_options.py::test_spark_opts_split_into_arguments_and_conf"
_YARN_MODE = "tests/unit/compiler/test_policies_and_options.py::test_falcon_yarn_masters_become_master_and_deploy_mode"
_OOZIE_CONF = "tests/unit/provider/test_macros_oozie_conf.py::test_every_property_falcon_gave_its_workflows"
_ENGINE = "tests/unit/validation/test_process_rules.py::test_broken_process_reports_the_rule"
_LINEAGE_GRAPH = "tests/unit/server/test_metadata_resource.py::test_lineage_of_a_pipeline"
_CLUSTER_VERSION = "tests/unit/validation/test_feed_rules.py::test_broken_feed_reports_the_rule"
_PROCESS_CLUSTER_VERSION = "tests/unit/validation/test_process_rules.py::test_broken_process_reports_the_rule"
_GROUPS = "tests/unit/validation/test_feed_rules.py::test_broken_feed_reports_the_rule"
_COLO = "tests/unit/provider/test_macros_oozie_conf.py::test_every_property_falcon_gave_its_workflows"
_STAGING = "tests/unit/validation/test_cluster_rules.py::test_broken_cluster_reports_the_rule"
_WORKING = "tests/unit/validation/test_environment_rules.py::test_c11_working_location_is_a_file"
_ENDPOINTS = "tests/unit/validation/test_cluster_rules.py::test_broken_cluster_reports_the_rule"

# Oozie
_O_GRAPH = "tests/unit/compiler/test_oozie.py::test_nodes_transitions_files_and_joins"
_O_JOINS = "tests/unit/compiler/test_oozie.py::test_join_arrivals_count_the_paths_of_the_fork_they_close"
_O_RUN = ("tests/integration/airflow/test_oozie_workflows.py::"
          "test_shell_decision_fork_fs_hive_join_spark_on_a_falcon_instance")
_O_KILL = ("tests/integration/airflow/test_oozie_workflows.py::"
           "test_failed_action_takes_its_error_path_to_kill_and_clear_reruns")
_O_EMAIL_SUB = "tests/integration/airflow/test_oozie_workflows.py::test_email_and_sub_workflow"
_O_SUB = "tests/unit/compiler/test_oozie.py::test_sub_workflow_is_compiled_in_place_with_its_caller_configuration"
_O_JAVA = "tests/integration/airflow/test_oozie_workflows.py::test_java_action_runs_its_main_class_on_the_spark_driver"
_O_JAVA_PARSE = "tests/unit/oozie/test_parse.py::test_java_action"
_O_MODEL = "tests/unit/oozie/test_parse.py::test_full_workflow_model"
_O_PARSE_MORE = "tests/unit/oozie/test_parse.py::test_email_sub_workflow_distcp_sqoop_hive2_ssh_and_unknown"
_O_SKIP_TRASH = "tests/unit/oozie/test_parse.py::test_delete_can_skip_the_trash"
_O_CONF = "tests/unit/dags/test_builder_rendering.py::test_oozie_workflow_arguments_and_configuration_verbatim"
_O_SHELL = "tests/unit/provider/hooks/test_oozie.py::test_shell_runs_in_a_working_folder_with_its_files_and_archives"
_O_ENV = "tests/unit/provider/hooks/test_oozie_access.py::test_a_shell_command_keeps_paths_locale_and_its_own_variables"
_O_EMAIL = "tests/unit/provider/hooks/test_oozie.py::test_email_message_keeps_the_content_type_and_attachments"
_O_FS = "tests/integration/jobs/test_oozie_fs.py::test_every_command_in_order"
_O_PREPARE = ("tests/unit/provider/operators/test_oozie_runtime_identity.py::"
              "test_prepare_judges_every_path_before_changing_anything")
_O_SPARK = ("tests/unit/provider/operators/test_oozie_runtime_identity.py::"
            "test_every_action_on_spark_runs_as_the_process_identity")
_O_PARAMETERS = "tests/unit/oozie/test_rules.py::test_required_parameters"
_O_GLOBAL = "tests/unit/oozie/test_rules.py::test_global_supplies_name_node_and_job_tracker_of_an_early_action_schema"
_O_DISTCP = ("tests/unit/provider/operators/test_oozie_runtime_identity.py::"
             "test_every_action_on_spark_runs_as_the_process_identity")
_APPLIED_ELEMENTS = "tests/unit/compiler/test_applied_elements.py::"
_O_RETRY = (_APPLIED_ELEMENTS
            + "test_an_oozie_action_retries_by_its_retry_max_and_interval_and_hive_texts_reach_the_job")
_O_HIVE = _O_RETRY
_FEED_MAIL = _APPLIED_ELEMENTS + "test_a_feeds_notification_mails_its_dags_and_a_spark_class_reaches_spark_submit"
_SPARK_CLASS = _FEED_MAIL
_O_REFUSED = "tests/unit/compiler/test_oozie.py::test_refused_actions_name_what_to_port_them_to"


# -- the four entity schemas ------------------------------------------------------------------------------------------

_STORED = _applied(_DEFINITION)  # metadata Falcon itself only stored and showed: kept and shown byte for byte


def _acl(root: str, *tests: str) -> dict[str, Coverage]:
    return {f"{root}/ACL": _applied(*tests), f"{root}/ACL/@owner": _applied(*tests),
            f"{root}/ACL/@group": _applied(*tests), f"{root}/ACL/@permission": _applied(_PERMISSION)}


def _properties(root: str, coverage: Coverage) -> dict[str, Coverage]:
    return {root: coverage, f"{root}/property": coverage, f"{root}/property/@name": coverage,
            f"{root}/property/@value": coverage}


_AUTHORIZATION = "tests/unit/operate/test_authorization.py::test_owner_and_superuser_may_act_and_an_outsider_may_not"
_GROUP_RIGHTS = "tests/unit/operate/test_authorization.py::test_the_group_reads_and_writes_as_the_permission_says"

CLUSTER: dict[str, Coverage] = {
    "cluster": _applied(_CLUSTER_CONF),
    "cluster/@name": _applied(_CLUSTER_CONF),
    "cluster/@description": _STORED,
    "cluster/@colo": _applied(_COLO),
    "cluster/@version": _applied(_CLUSTER_VERSION, _PROCESS_CLUSTER_VERSION),
    "cluster/tags": _applied(_LISTED_BY_TAGS),
    "cluster/interfaces": _applied(_ENDPOINTS),
    "cluster/interfaces/interface": _applied(_ENDPOINTS),
    "cluster/interfaces/interface/@type": _applied(_ENDPOINTS, _MASTER, _REGISTRY, _MESSAGING),
    "cluster/interfaces/interface/@endpoint": _applied(_ENDPOINTS, _MASTER, _REGISTRY, _MESSAGING),
    "cluster/interfaces/interface/@version": _STORED,
    "cluster/locations": _applied(_STAGING),
    "cluster/locations/location": _applied(_STAGING, _WORKING),
    "cluster/locations/location/@name": _applied(_STAGING, _WORKING),
    "cluster/locations/location/@name=temp": Reported(UNUSED_RULE, "no falcon-airflow job reads or writes that folder"),
    "cluster/locations/location/@path": _applied(_STAGING, _WORKING),
    **_acl("cluster", _AUTHORIZATION),
    **_properties("cluster/properties", _applied(_CLUSTER_CONF)),
}

_TRANSFER = (_IMPORT, _IMPORT_RUN)


def _transfer(side: str, element: str) -> dict[str, Coverage]:
    """The datasource side of an import (``source``) or export (``target``)."""
    root = f"feed/clusters/cluster/{side}/{element}"
    entries: dict[str, Coverage] = {
        f"feed/clusters/cluster/{side}": _applied(*_TRANSFER),
        f"feed/clusters/cluster/{side}/arguments": _applied(_IMPORT_ARGUMENTS),
        f"feed/clusters/cluster/{side}/arguments/argument": _applied(_IMPORT_ARGUMENTS),
        f"feed/clusters/cluster/{side}/arguments/argument/@name": _applied(_IMPORT_ARGUMENTS),
        f"feed/clusters/cluster/{side}/arguments/argument/@value": _applied(_IMPORT_ARGUMENTS),
        root: _applied(*_TRANSFER),
        f"{root}/@name": _applied(_DATASOURCE_URL),
        f"{root}/@tableName": _applied(_DATASOURCE_URL),
        f"{root}/@version": Reported(UNUSED_RULE, "the transfer uses the datasource as currently defined"),
    }
    if side == "import":
        entries |= {
            f"{root}/extract": _applied(*_TRANSFER),
            f"{root}/extract/@type": _applied(*_TRANSFER),
            f"{root}/extract/@type=incremental": Reported("F10", "only a full snapshot extract is supported"),
            f"{root}/extract/deltacolumn": Reported("F10", "a full snapshot extract takes no delta column"),
            f"{root}/extract/mergepolicy": _applied(*_TRANSFER),
            f"{root}/extract/mergepolicy=append": Reported("F10", "only the snapshot merge policy is supported"),
            f"{root}/load": Reported("F10", "an import reads with an <extract>, a <load> is for exports"),
            f"{root}/load/@type": Reported("F10", "an import reads with an <extract>, a <load> is for exports"),
            f"{root}/fields": _applied(_IMPORT_RUN),
            f"{root}/fields/includes": _applied(_IMPORT_RUN),
            f"{root}/fields/includes/field": _applied(_IMPORT_RUN),
            f"{root}/fields/excludes": Reported("F12", "an import selects the fields it includes only"),
            f"{root}/fields/excludes/field": Reported("F12", "an import selects the fields it includes only"),
        }
    else:
        entries |= {
            f"{root}/extract/**": Reported(UNUSED_RULE, "an export writes with its <load> type"),
            f"{root}/load": _applied(_IMPORT),
            f"{root}/load/@type": _applied(_IMPORT),
            f"{root}/fields/**": Reported("F14", "an export writes every column of the feed"),
        }
    return entries


def _retention_stage(root: str) -> dict[str, Coverage]:
    stage = f"{root}/lifecycle/retention-stage"
    return {
        f"{root}/lifecycle": _applied(_LIFECYCLE),
        stage: _applied(_LIFECYCLE),
        f"{stage}/policy": _applied(_LIFECYCLE),
        f"{stage}/frequency": _applied(_LIFECYCLE),
        f"{stage}/queue": _applied(_RETENTION),
        f"{stage}/priority": Reported(UNUSED_RULE, "a retention task has no job priority"),
        **_properties(f"{stage}/properties", _applied(_RETENTION)),
    }


def _feed_locations(root: str) -> dict[str, Coverage]:
    return {f"{root}/locations": _applied(_FEED_PATHS), f"{root}/locations/location": _applied(_FEED_PATHS),
            f"{root}/locations/location/@type": _applied(_RETENTION),
            f"{root}/locations/location/@path": _applied(_FEED_PATHS),
            f"{root}/table": _applied(_TABLE_IO), f"{root}/table/@uri": _applied(_TABLE_IO)}


FEED: dict[str, Coverage] = {
    "feed": _applied(_FEED_PATHS),
    "feed/@name": _applied(_FEED_PATHS),
    "feed/@description": _STORED,
    "feed/@version": _STORED,
    "feed/tags": _applied(_LISTED_BY_TAGS),
    "feed/partitions": _applied(_INPUT_PARTITION),
    "feed/partitions/partition": _applied(_INPUT_PARTITION),
    "feed/partitions/partition/@name": _applied(_INPUT_PARTITION),
    "feed/groups": _applied(_GROUPS, _LINEAGE_FACTS),
    "feed/availabilityFlag": _applied(_FLAG),
    "feed/frequency": _applied(_TIMETABLE),
    "feed/sla": _applied(_FEED_SLA),
    "feed/sla/@slaLow": _applied(_FEED_SLA),
    "feed/sla/@slaHigh": _applied(_FEED_SLA),
    "feed/timezone": _applied(_DST),
    "feed/late-arrival": _applied(_LATE, _LATE_RUN),
    "feed/late-arrival/@cut-off": _applied(_LATE, _LATE_RUN),
    "feed/clusters": _applied(_REPLICATION),
    "feed/clusters/cluster": _applied(_REPLICATION),
    "feed/clusters/cluster/@name": _applied(_REPLICATION),
    "feed/clusters/cluster/@type": _applied(_REPLICATION),
    "feed/clusters/cluster/@partition": _applied(_REPLICATION_PARTITION),
    "feed/clusters/cluster/@delay": _applied(_REPLICATION),
    "feed/clusters/cluster/@version": _applied(_CLUSTER_VERSION),
    "feed/clusters/cluster/validity": _applied(_NOTHING_AFTER),
    "feed/clusters/cluster/validity/@start": _applied(_TIMETABLE),
    "feed/clusters/cluster/validity/@end": _applied(_NOTHING_AFTER),
    "feed/clusters/cluster/retention": _applied(_RETENTION),
    "feed/clusters/cluster/retention/@type": _applied(_RETENTION),
    "feed/clusters/cluster/retention/@limit": _applied(_RETENTION),
    "feed/clusters/cluster/retention/@action": _applied(_RETENTION),
    "feed/clusters/cluster/sla": _applied(_FEED_SLA),
    "feed/clusters/cluster/sla/@slaLow": _applied(_FEED_SLA),
    "feed/clusters/cluster/sla/@slaHigh": _applied(_FEED_SLA),
    **_transfer("import", "source"),
    **_transfer("export", "target"),
    **_feed_locations("feed/clusters/cluster"),
    **_retention_stage("feed/clusters/cluster"),
    **_feed_locations("feed"),
    "feed/notification": _applied(_FEED_MAIL, _FEED_SLA),
    "feed/notification/@type": _applied(_FEED_MAIL),
    "feed/notification/@level": _applied(_FEED_MAIL),
    "feed/notification/@level=attempt": Reported(UNUSED_RULE, "a feed's runs mail once per instance"),
    "feed/notification/@to": _applied(_FEED_MAIL, _FEED_SLA),
    **_acl("feed", _ACCESS),
    "feed/schema": _applied(_STORAGE_FORMAT),
    "feed/schema/@location": _applied(_LINEAGE_FACTS),
    "feed/schema/@provider": _applied(_STORAGE_FORMAT, _LINEAGE_FACTS),
    **_properties("feed/properties", _applied(_REPLICATION)),
    **_retention_stage("feed"),
}

PROCESS: dict[str, Coverage] = {
    "process": _applied(_RUN),
    "process/@name": _applied(_RUN),
    "process/@version": _STORED,
    "process/tags": _applied(_TAGS, _LISTED_BY_TAGS),
    "process/pipelines": _applied(_LINEAGE_GRAPH),
    "process/clusters": _applied(_RUN),
    "process/clusters/cluster": _applied(_RUN),
    "process/clusters/cluster/@name": _applied(_RUN),
    "process/clusters/cluster/@version": _applied(_PROCESS_CLUSTER_VERSION),
    "process/clusters/cluster/validity": _applied(_TIMETABLE),
    "process/clusters/cluster/validity/@start": _applied(_TIMETABLE),
    "process/clusters/cluster/validity/@end": _applied(_NOTHING_AFTER),
    "process/clusters/cluster/sla": _applied(_PROCESS_SLA),
    "process/clusters/cluster/sla/@shouldStartIn": _applied(_PROCESS_SLA),
    "process/clusters/cluster/sla/@shouldEndIn": _applied(_PROCESS_SLA),
    # parallel, order, retry and late-process: the tests named show them on Spark processes
    "process/parallel": _applied(_THROTTLE, _OOZIE_GATE, _OOZIE_CONTROLS),
    "process/order": _applied(_THROTTLE, _LIFO, _LAST_ONLY, _OOZIE_GATE, _OOZIE_CONTROLS),
    "process/timeout": _applied(_TIMEOUT),
    "process/frequency": _applied(_TIMETABLE),
    "process/sla": _applied(_PROCESS_SLA),
    "process/sla/@shouldStartIn": _applied(_PROCESS_SLA),
    "process/sla/@shouldEndIn": _applied(_PROCESS_SLA),
    "process/timezone": _applied(_DST),
    "process/inputs": _applied(_ARGUMENTS),
    "process/inputs/input": _applied(_ARGUMENTS, _RUN),
    "process/inputs/input/@name": _applied(_ARGUMENTS),
    "process/inputs/input/@feed": _applied(_ARGUMENTS),
    "process/inputs/input/@start": _applied(_ARGUMENTS),
    "process/inputs/input/@end": _applied(_ARGUMENTS),
    "process/inputs/input/@partition": _applied(_INPUT_PARTITION),
    "process/inputs/input/@optional": _applied(_OPTIONAL),
    "process/outputs": _applied(_ARGUMENTS),
    "process/outputs/output": _applied(_ARGUMENTS, _ASSETS),
    "process/outputs/output/@name": _applied(_ARGUMENTS),
    "process/outputs/output/@feed": _applied(_ARGUMENTS),
    "process/outputs/output/@instance": _applied(_ARGUMENTS),
    **_properties("process/properties", _applied(_PROPERTIES)),
    "process/workflow": _applied(_APPLICATION),
    "process/workflow/@name": _applied(_OOZIE_CONF),
    "process/workflow/@version": _applied(_OOZIE_CONF),
    "process/workflow/@engine": _applied(_APPLICATION, _ENGINE),
    "process/workflow/@engine=pig": Reported("FA002", "there is no Pig runtime here"),
    "process/workflow/@path": _applied(_APPLICATION),
    "process/workflow/@lib": _applied(_LIB),
    "process/spark-attributes": _applied(_MASTER),
    "process/spark-attributes/master": _applied(_MASTER),
    "process/spark-attributes/mode": _applied(_YARN_MODE),
    "process/spark-attributes/name": _applied(_SPARK_NAME),
    "process/spark-attributes/class": _applied(_SPARK_CLASS),
    "process/spark-attributes/jar": _applied(_APPLICATION),
    "process/spark-attributes/spark-opts": _applied(_SPARK_OPTS),
    "process/spark-attributes/arg": _applied(_PROPERTIES),
    "process/retry": _applied(_THROTTLE, _RETRY, _OOZIE_RETRY, _OOZIE_CONTROLS),
    "process/retry/@policy": _applied(_RETRY),
    "process/retry/@delay": _applied(_RETRY),
    "process/retry/@attempts": _applied(_RETRY),
    "process/retry/@onTimeout": _applied(_THROTTLE),
    "process/late-process": _applied(_LATE, _LATE_RUN, _OOZIE_LATE, _OOZIE_CONTROLS),
    "process/late-process/@policy": _applied(_LATE),
    "process/late-process/@delay": _applied(_LATE),
    "process/late-process/late-input": _applied(_LATE_RUN),
    "process/late-process/late-input/@input": _applied(_LATE_RUN),
    "process/late-process/late-input/@workflow-path": _applied(_LATE_RERUN),
    "process/notification": _applied(_MAIL),
    "process/notification/@type": _applied(_MAIL),
    "process/notification/@level": _applied(_MAIL),
    "process/notification/@to": _applied(_MAIL),
    **_acl("process", _ACCESS),
}


def _credential(root: str) -> dict[str, Coverage]:
    return {root: _applied(_CREDENTIAL), f"{root}/@type": _applied(_CREDENTIAL),
            f"{root}/userName": _applied(_ALIAS), f"{root}/passwordText": _applied(_PASSWORD_TEXT),
            f"{root}/passwordFile": _applied(_PASSWORD_FILE), f"{root}/passwordAlias": _applied(_ALIAS),
            f"{root}/passwordAlias/alias": _applied(_ALIAS),
            f"{root}/passwordAlias/providerPath": _applied(_KEYSTORE)}


def _driver(root: str) -> dict[str, Coverage]:
    return {root: _applied(_DRIVER_CLASS), f"{root}/clazz": _applied(_DRIVER_CLASS, _JDBC),
            f"{root}/jar": Reported(UNUSED_RULE, "the class is loaded from the driver the deployment pins; "
                                     "a jar that names another build is reported")}


_NO_PROPERTIES = Reported(UNUSED_RULE, "a transfer connects with the JDBC URL and the credential only")

DATASOURCE: dict[str, Coverage] = {
    "datasource": _applied(*_TRANSFER),
    "datasource/@name": _applied(_DATASOURCE_URL),
    "datasource/@colo": _STORED,
    "datasource/@description": _STORED,
    "datasource/@version": _STORED,
    "datasource/@type": _applied(_DRIVER_CLASS, _JDBC),
    "datasource/tags": _applied(_LISTED_BY_TAGS),
    "datasource/interfaces": _applied(_DATASOURCE_URL),
    "datasource/interfaces/interface": _applied(_DATASOURCE_URL),
    "datasource/interfaces/interface/@type": _applied(_DATASOURCE_URL),
    "datasource/interfaces/interface/@endpoint": _applied(_DATASOURCE_URL, _JDBC),
    **_driver("datasource/interfaces/interface/driver"),
    **_credential("datasource/interfaces/interface/credential"),
    **_properties("datasource/interfaces/interface/properties", _NO_PROPERTIES),
    **_credential("datasource/interfaces/credential"),
    **_driver("datasource/driver"),
    **_properties("datasource/properties", _NO_PROPERTIES),
    **_acl("datasource", _AUTHORIZATION),
}

FALCON: dict[str, dict[str, Coverage]] = {"cluster": CLUSTER, "feed": FEED, "process": PROCESS,
                                          "datasource": DATASOURCE}


# -- Oozie's workflow, action and SLA schemas -------------------------------------------------------------------------

_NOT_APPLIED_JOB_XML = Reported(OOZIE_UNUSED_RULE, "no Hadoop job configuration file is read")
_NOT_APPLIED_LAUNCHER = Reported(OOZIE_UNUSED_RULE, "there is no Oozie launcher job")
# The cluster an action runs on: the Falcon process's cluster (Falcon passes ${jobTracker} and ${nameNode}).
_CLUSTER = _applied(_O_SPARK, _O_GLOBAL)


def _configuration(root: str) -> dict[str, Coverage]:
    return {f"{root}/configuration": _applied(_O_CONF), f"{root}/configuration/property": _applied(_O_CONF),
            f"{root}/configuration/property/name": _applied(_O_CONF),
            f"{root}/configuration/property/value": _applied(_O_CONF),
            f"{root}/configuration/property/description": _applied(_O_MODEL)}


_O_ROOTS = {"hive2": _O_HIVE, "java": _O_JAVA, "distcp": _O_DISTCP}


def _hadoop(action: str, *, files: Coverage | None = None, archives: Coverage | None = None,
            shipped: bool = True) -> dict[str, Coverage]:
    """What every launcher-based action of type ``action`` shares (``shipped``: it has <job-xml>, <file> and
    <archive>, as every one but distcp has)."""
    root = f"workflow-app/action/{action}"
    entries: dict[str, Coverage] = {
        root: _applied(_O_ROOTS.get(action, _O_RUN)),
        f"{root}/job-tracker": _CLUSTER,
        f"{root}/resource-manager": _CLUSTER,
        f"{root}/name-node": _CLUSTER,
        f"{root}/prepare": _applied(_O_PREPARE),
        f"{root}/prepare/delete": _applied(_O_PREPARE),
        f"{root}/prepare/delete/@path": _applied(_O_PREPARE),
        f"{root}/prepare/mkdir": _applied(_O_PREPARE),
        f"{root}/prepare/mkdir/@path": _applied(_O_PREPARE),
        f"{root}/launcher/**": _NOT_APPLIED_LAUNCHER,
        **_configuration(root),
    }
    if shipped:
        entries |= {f"{root}/job-xml": _NOT_APPLIED_JOB_XML, f"{root}/file": files or _applied(_O_SHELL),
                    f"{root}/archive": archives or _applied(_O_SHELL)}
    return entries


def _refused(action: str, why: str) -> dict[str, Coverage]:
    return {f"workflow-app/action/{action}/**": Reported(UNSUPPORTED_RULE, why)}


_HIVE_FILES = Reported(OOZIE_UNUSED_RULE, "Spark SQL in the worker's application ships no files")
_HIVE_ARGUMENT = Reported(OOZIE_UNUSED_RULE, "Spark SQL takes no Hive command-line options")
_JAVA_FILES = Reported(OOZIE_UNUSED_RULE, "the main class runs with the application's lib/ jars only")
_HIVE_RUN = _O_RUN

OOZIE: dict[str, Coverage] = {
    "workflow-app": _applied(_O_GRAPH),
    "workflow-app/@name": _applied(_O_GRAPH),
    "workflow-app/sla:info": Reported(OOZIE_UNUSED_RULE, "Oozie's SLA events are not emitted"),
    "sla:info/**": Reported(OOZIE_UNUSED_RULE, "Oozie's SLA events are not emitted"),
    "workflow-app/parameters": _applied(_O_PARAMETERS),
    "workflow-app/parameters/property": _applied(_O_PARAMETERS),
    "workflow-app/parameters/property/name": _applied(_O_PARAMETERS),
    "workflow-app/parameters/property/value": _applied(_O_PARAMETERS),
    "workflow-app/parameters/property/description": _applied(_O_MODEL),
    "workflow-app/global": _applied(_O_GLOBAL),
    "workflow-app/global/job-tracker": _CLUSTER,
    "workflow-app/global/resource-manager": _CLUSTER,
    "workflow-app/global/name-node": _CLUSTER,
    "workflow-app/global/job-xml": _NOT_APPLIED_JOB_XML,
    "workflow-app/global/launcher/**": _NOT_APPLIED_LAUNCHER,
    **_configuration("workflow-app/global"),
    "workflow-app/credentials/**": Reported(OOZIE_UNUSED_RULE, "no delegation tokens are fetched"),
    "workflow-app/start": _applied(_O_GRAPH),
    "workflow-app/start/@to": _applied(_O_GRAPH),
    "workflow-app/end": _applied(_O_GRAPH),
    "workflow-app/end/@name": _applied(_O_GRAPH),
    "workflow-app/kill": _applied(_O_KILL),
    "workflow-app/kill/@name": _applied(_O_KILL),
    "workflow-app/kill/message": _applied(_O_KILL),
    "workflow-app/decision": _applied(_O_RUN),
    "workflow-app/decision/@name": _applied(_O_RUN),
    "workflow-app/decision/switch": _applied(_O_RUN),
    "workflow-app/decision/switch/case": _applied(_O_RUN),
    "workflow-app/decision/switch/case/@to": _applied(_O_RUN),
    "workflow-app/decision/switch/default": _applied(_O_RUN),
    "workflow-app/decision/switch/default/@to": _applied(_O_RUN),
    "workflow-app/fork": _applied(_O_JOINS),
    "workflow-app/fork/@name": _applied(_O_JOINS),
    "workflow-app/fork/path": _applied(_O_JOINS),
    "workflow-app/fork/path/@start": _applied(_O_JOINS),
    "workflow-app/join": _applied(_O_JOINS),
    "workflow-app/join/@name": _applied(_O_JOINS),
    "workflow-app/join/@to": _applied(_O_JOINS),
    "workflow-app/action": _applied(_O_GRAPH),
    "workflow-app/action/@name": _applied(_O_GRAPH),
    "workflow-app/action/@retry-max": _applied(_O_RETRY),
    "workflow-app/action/@retry-interval": _applied(_O_RETRY),
    "workflow-app/action/@retry-policy": Reported(OOZIE_UNUSED_RULE, "retries wait a fixed retry-interval"),
    "workflow-app/action/@cred": Reported(OOZIE_UNUSED_RULE, "no delegation tokens are fetched"),
    "workflow-app/action/sla:info": Reported(OOZIE_UNUSED_RULE, "Oozie's SLA events are not emitted"),
    "workflow-app/action/ok": _applied(_O_KILL),
    "workflow-app/action/ok/@to": _applied(_O_KILL),
    "workflow-app/action/error": _applied(_O_KILL),
    "workflow-app/action/error/@to": _applied(_O_KILL),
    "workflow-app/action/*": Reported(UNSUPPORTED_RULE, "a custom action executor does not run here"),
    # shell
    **_hadoop("shell"),
    "workflow-app/action/shell/exec": _applied(_O_SHELL),
    "workflow-app/action/shell/argument": _applied(_O_SHELL),
    "workflow-app/action/shell/env-var": _applied(_O_ENV),
    "workflow-app/action/shell/capture-output": _applied(_O_RUN),
    # spark
    **_hadoop("spark", files=_applied(_O_SPARK),
              archives=Reported(OOZIE_UNUSED_RULE, "only <file>s are shipped to the Spark application")),
    "workflow-app/action/spark/master": _applied(_O_SPARK),
    "workflow-app/action/spark/mode": _applied(_O_SPARK),
    "workflow-app/action/spark/name": _applied(_O_SPARK),
    "workflow-app/action/spark/class": _applied(_O_SPARK),
    "workflow-app/action/spark/jar": _applied(_O_SPARK),
    "workflow-app/action/spark/spark-opts": _applied(_O_SPARK),
    "workflow-app/action/spark/arg": _applied(_O_SPARK),
    # hive and hive2: the script on Spark SQL
    **_hadoop("hive", files=_HIVE_FILES, archives=_HIVE_FILES),
    "workflow-app/action/hive/script": _applied(_HIVE_RUN),
    "workflow-app/action/hive/query": _applied(_O_HIVE),
    "workflow-app/action/hive/param": _applied(_HIVE_RUN),
    "workflow-app/action/hive/argument": _HIVE_ARGUMENT,
    **_hadoop("hive2", files=_HIVE_FILES, archives=_HIVE_FILES),
    "workflow-app/action/hive2/jdbc-url": Reported(OOZIE_UNUSED_RULE, "the script runs on Spark SQL, not HiveServer2"),
    "workflow-app/action/hive2/password": Reported(OOZIE_UNUSED_RULE, "no HiveServer2 connection is opened"),
    "workflow-app/action/hive2/script": _applied(_O_HIVE),
    "workflow-app/action/hive2/query": _applied(_O_HIVE),
    "workflow-app/action/hive2/param": _applied(_O_HIVE),
    "workflow-app/action/hive2/argument": _HIVE_ARGUMENT,
    # java: the main class on Spark's driver
    **_hadoop("java", files=_JAVA_FILES, archives=_JAVA_FILES),
    "workflow-app/action/java/main-class": _applied(_O_JAVA),
    "workflow-app/action/java/java-opts": _applied(_O_JAVA),
    "workflow-app/action/java/java-opt": _applied(_O_JAVA_PARSE, _O_SPARK),
    "workflow-app/action/java/arg": _applied(_O_JAVA),
    "workflow-app/action/java/capture-output": Reported(OOZIE_UNUSED_RULE, "its output is not read for "
                                                                            "wf:actionData"),
    # distcp: the project's replication copier
    **_hadoop("distcp", shipped=False),
    "workflow-app/action/distcp/java-opts": Reported(OOZIE_UNUSED_RULE, "the copy takes no JVM options"),
    "workflow-app/action/distcp/arg": _applied(_O_DISTCP),
    # fs, email, sub-workflow
    "workflow-app/action/fs": _applied(_O_FS),
    "workflow-app/action/fs/name-node": _CLUSTER,
    "workflow-app/action/fs/job-xml": _NOT_APPLIED_JOB_XML,
    **_configuration("workflow-app/action/fs"),
    **{f"workflow-app/action/fs/{item}": _applied(_O_FS) for item in (
        "delete", "delete/@path", "mkdir", "mkdir/@path", "move", "move/@source", "move/@target", "chmod",
        "chmod/@path", "chmod/@permissions", "chmod/@dir-files", "chmod/recursive", "touchz", "touchz/@path",
        "chgrp", "chgrp/@path", "chgrp/@group", "chgrp/@dir-files", "chgrp/recursive")},
    "workflow-app/action/fs/delete/@skip-trash": _applied(_O_SKIP_TRASH),
    "workflow-app/action/fs/setrep/**": Reported(UNSUPPORTED_RULE, "a block replication factor has no equivalent"),
    **{f"workflow-app/action/email/{item}": _applied(_O_EMAIL, _O_EMAIL_SUB) for item in (
        "to", "cc", "bcc", "subject", "body", "message", "content_type", "attachment")},
    "workflow-app/action/email": _applied(_O_EMAIL_SUB),
    "workflow-app/action/sub-workflow": _applied(_O_SUB, _O_EMAIL_SUB),
    "workflow-app/action/sub-workflow/app-path": _applied(_O_SUB),
    "workflow-app/action/sub-workflow/propagate-configuration": _applied(_O_SUB),
    **_configuration("workflow-app/action/sub-workflow"),
    # actions that cannot run here (oozie.support); FA020 refuses each as a whole
    **_refused("map-reduce", "there is no MapReduce runtime here"),
    **_refused("pig", "there is no Pig runtime here"),
    **_refused("sqoop", "a Sqoop command runs as MapReduce jobs"),
    **_refused("ssh", "workers do not open SSH sessions"),
    **_refused("git", "workers do not clone repositories"),
    **_refused("http", "an action type this project does not know"),
}


def reported_markdown() -> str:
    """The reported-not-applied elements as the Markdown table docs/validation.md shows (between its markers): one
    row per element, its children reported the same way left out."""
    rows = ["| schema | element | rule | why it is not applied |", "|---|---|---|---|"]
    tables: list[tuple[str, dict[str, Coverage]]] = [*FALCON.items(), ("oozie", OOZIE)]
    for schema, table in tables:
        for key, entry in sorted(table.items()):
            parts = key.split("/")
            if not isinstance(entry, Reported) or any(table.get("/".join(parts[:end])) == entry
                                                      for end in range(1, len(parts))):
                continue
            why = re.sub(r"(<[^>]+>)", r"`\1`", entry.why)
            rows.append(f"| {schema} | `{key}` | {entry.rule} | {why} |")
    return "\n".join(rows) + "\n"
