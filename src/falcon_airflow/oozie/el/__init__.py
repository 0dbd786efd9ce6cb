"""Oozie's expression language (JSP 2.0 EL with Oozie's functions), as workflows use it in action configuration
and decision predicates.

Public names (stable):

* :func:`evaluate_text` (a text with ``${...}`` to a string), :func:`evaluate_value` (the typed value of a lone
  ``${...}``), :func:`evaluate_predicate` (a decision ``<case>`` to a bool), :func:`check_syntax`;
* :class:`WorkflowContext` (what the runtime fills: job id, name, app path, user, group, run, ``conf``, extra
  ``variables``, per-action :class:`ActionResult`, ``last_error_node``, ``fs``, ``clock``);
* :class:`OozieFileSystem` (the protocol ``fs:`` functions call: ``exists``, ``is_dir``, ``dir_size``,
  ``file_size``, ``block_size``) and :class:`LocalFileSystem` (plain and ``file://`` paths);
* :data:`FUNCTIONS` (the registry: qualified name to :class:`ELFunction`; pass ``functions=`` to add more);
* :func:`parse_template` and the AST (:class:`Template`, ``Expression``) with character positions: the project's
  one EL front end (``falcon_airflow.el.syntax``), whose whole grammar is the JSP EL Oozie parses.

Errors: :class:`~falcon_airflow.errors.ELSyntaxError` and :class:`~falcon_airflow.errors.ELEvaluationError`,
each with ``position`` (0-based offset in the text).
"""

from __future__ import annotations

from falcon_airflow.el.syntax import Call, Expression, Template, functions_called, parse_template
from falcon_airflow.oozie.el.context import ActionResult, LocalFileSystem, OozieFileSystem, WorkflowContext
from falcon_airflow.oozie.el.evaluate import check_syntax, evaluate_predicate, evaluate_text, evaluate_value
from falcon_airflow.oozie.el.functions import CONSTANTS, FUNCTIONS, ELFunction, FunctionError

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "ActionResult",
    "Call",
    "ELFunction",
    "Expression",
    "FunctionError",
    "LocalFileSystem",
    "OozieFileSystem",
    "Template",
    "WorkflowContext",
    "check_syntax",
    "evaluate_predicate",
    "evaluate_text",
    "evaluate_value",
    "functions_called",
    "parse_template",
]
