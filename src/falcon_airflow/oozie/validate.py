"""Everything ``falcon-airflow validate`` says about one workflow definition, in file and line order.

Reading and schema (``E0701``), the size Oozie's default server accepts (``E0736``, a warning), Oozie's
structural rules (``E07xx``), EL syntax (``FA023``, ``FA024``), nodes
never reached (``FA022``), actions that cannot run here (``FA020``: an error when a Falcon process uses the
workflow, a warning for a bare ``workflow.xml``), actions that would choose whom they run as (``FA035``) and local
files an action could not use (``FA036``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.expressions import expression_issues
from falcon_airflow.oozie.identity import file_issues, identity_issues
from falcon_airflow.oozie.model import Workflow
from falcon_airflow.oozie.parse import ParsedWorkflow, from_loaded
from falcon_airflow.oozie.rules import check_workflow
from falcon_airflow.oozie.support import not_applied_issues, support_issues
from falcon_airflow.parsing.secure import load_xml_file


@dataclass(frozen=True, slots=True)
class WorkflowReport:
    parsed: ParsedWorkflow
    issues: tuple[Issue, ...]

    @property
    def workflow(self) -> Workflow | None:
        return self.parsed.workflow

    @property
    def has_errors(self) -> bool:
        return any(issue.is_error for issue in self.issues)


OOZIE_MAX_DEFINITION_BYTES = 100_000  # oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength's default


def _length_issues(path: str | os.PathLike[str], shown: str, name: str | None) -> list[Issue]:
    """Oozie's default server refuses definitions over 100,000 bytes (E0736); falcon-airflow reads up to 4 MiB."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return []  # reading reported it already
    if size <= OOZIE_MAX_DEFINITION_BYTES:
        return []
    return [Issue(Level.WARNING, "E0736", f"the definition is {size:,} bytes; an Oozie server with default settings "
                  f"refuses more than {OOZIE_MAX_DEFINITION_BYTES:,} (falcon-airflow runs it)", file=shown, line=1,
                  entity=name, entity_type="workflow")]


def validate_workflow_file(path: str | os.PathLike[str], display: str | None = None, *,
                           supplied: Mapping[str, str] | None = None,
                           in_process: str | None = None) -> WorkflowReport:
    """Validate one ``workflow.xml``.

    ``supplied``: the configuration the workflow will run with (``None`` for a bare file: required parameters are
    then only a warning). ``in_process``: the Falcon process that uses it (actions that cannot run become errors).
    """
    shown = display if display is not None else os.fspath(path)
    loaded = load_xml_file(path, shown)
    parsed = from_loaded(loaded, shown)
    issues = list(parsed.issues)
    issues.extend(_length_issues(path, shown, parsed.name))
    if parsed.workflow is not None and loaded.root is not None:
        issues.extend(expression_issues(loaded.root, shown, parsed.workflow.name))
        issues.extend(check_workflow(parsed.workflow, supplied))
        issues.extend(support_issues(parsed.workflow, in_process=in_process))
        issues.extend(not_applied_issues(parsed.workflow))
        issues.extend(identity_issues(parsed.workflow))
        issues.extend(file_issues(parsed.workflow))
    return WorkflowReport(parsed, tuple(sorted(issues, key=Issue.sort_key)))
