"""``admin``: Airflow's health and versions, safemode (persisted in the store) and the audit trail.

Falcon's server answers ``api/admin/...`` itself (:mod:`falcon_airflow.server.resources.admin`): its version, its
threads and its settings are the server's, not the commands' view of Airflow.
"""

from __future__ import annotations

from falcon_airflow.operate.declarations import Action, CommandDeclaration, Option

ACTIONS_MODULE = "falcon_airflow.operate.admin_actions"

OPTIONS = (
    Option("start", "start", "-audit: from this time, yyyy-MM-ddTHH:mmZ", "TIME", audit="start"),
    Option("end", "end", "-audit: before this time, yyyy-MM-ddTHH:mmZ", "TIME", audit="end"),
    Option("user", "user", "-audit: only commands by this user (acting or -doAs)", "USER"),
)

ACTIONS = (
    Action("admin", "status", "whether Airflow's API server and metadata database are up",
           f"{ACTIONS_MODULE}:status", "read"),
    Action("admin", "version", "falcon-airflow's and Airflow's versions", f"{ACTIONS_MODULE}:version", "read"),
    Action("admin", "stack", "what Airflow is doing: each component's health and every task instance at work",
           f"{ACTIONS_MODULE}:stack", "read"),
    Action("admin", "setsafemode", "true|false: enter or leave safemode (persisted in the store)",
           f"{ACTIONS_MODULE}:set_safemode_action", "change", lock=True, metavar="BOOL"),
    Action("admin", "audit", "the audit trail: every command with its user, -doAs user, target and result "
           "(-start, -end, -user to narrow it)", f"{ACTIONS_MODULE}:audit_trail", "read",
           optional=("start", "end", "user")),
)

COMMAND = CommandDeclaration("admin", ACTIONS, OPTIONS)
