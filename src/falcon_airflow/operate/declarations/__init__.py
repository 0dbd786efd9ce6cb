"""One declaration per action: every ``entity``, ``instance``, ``admin``, ``metadata`` and ``extension`` action is
declared once, here, and everything else is derived from it.

An :class:`Action` says its name (the option that chooses it, ``-status``), its help, its options (required and
optional, by the keys the handlers read them with; each :class:`Option` carries Falcon's name), the handler that runs
it (``"module:function"``, imported when the action runs), whether it only reads or changes something (the right
the authorization checks), whether it holds the store's lock while it runs, and the REST routes of Falcon's server
that run it (:class:`Route`: method, path as Falcon's resources spell it, the request body's option, what the answer
is). Derived from the declarations:

* the argument parsers of ``falcon-airflow`` and ``airflow falcon`` (:mod:`falcon_airflow.operate.arguments`);
* the supported-actions message and the "exactly one action" rule (:class:`falcon_airflow.operate.options.Options`);
* dispatch, locking and the journal recovery (:mod:`falcon_airflow.operate.execution`);
* the right each action needs (:func:`falcon_airflow.operate.authorization.is_read`) and the audit line's target
  (the options marked ``audit``);
* the REST routes of the server (:mod:`falcon_airflow.server.resources`).

Adding a read-only action is one :class:`Action` in its command's module plus its handler. Importing this package
costs nothing: it is plain data.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from falcon_airflow.operate.context import Context
    from falcon_airflow.operate.options import Options
    from falcon_airflow.operate.outcomes import Outcome

Right = Literal["read", "change"]
Handler = Callable[["Context", "Options"], "Outcome"]
Method = Literal["GET", "POST", "DELETE", "PUT"]

# The types a route answers in, in the order of Falcon's @Produces (the first is what "Accept: */*" gets).
ENTITY_ACTION = ("xml", "text", "json")
XML_JSON = ("xml", "json")
JSON_XML = ("json", "xml")
JSON = ("json",)
JSON_TEXT = ("json", "text")
XML_TEXT = ("xml", "text")
TEXT = ("text",)


@dataclass(frozen=True)
class Option:
    """One option of a command: ``metavar`` ``None`` is a switch (no value)."""

    name: str
    """Falcon's name: the command-line flag without its dash and the REST query parameter (``filterBy``)."""
    dest: str
    """The key the handlers read it by (``filter_by``)."""
    help: str
    metavar: str | None = None
    flag: str = ""
    """The command-line flag; ``-<name>`` when not given (``--format``, ``--text`` are not Falcon's)."""
    audit: str | None = None
    """The key the option has in the audit line, for the options that say what a command acts on."""

    def __post_init__(self) -> None:
        if not self.flag:
            object.__setattr__(self, "flag", f"-{self.name}")

    @property
    def switch(self) -> bool:
        return self.metavar is None


@dataclass(frozen=True)
class Route:
    """A REST call of Falcon's server that runs the action.

    ``path`` is the route under the server (``/api/entities/status/{type}/{name}``); each ``{key}`` in it is the
    value of the option with that ``dest``. The action's other options come from the query string, by their
    Falcon names (``filterBy=...``); ``body`` names the option the request body stands for (an entity definition,
    posted as Falcon's clients post it). ``answer`` is the result type's converter
    (:data:`falcon_airflow.server.bodies.CONVERTERS`), ``produces`` the types it is answered in.

    ``properties``: the request body is a Java properties document (Falcon's instance actions), each of these
    ``(property, option dest)`` pairs setting an option; the properties left over are the ``body`` option's
    content, when the route has one, and are not read otherwise.
    """

    method: Method
    path: str
    body: str | None = None
    produces: tuple[str, ...] = ENTITY_ACTION
    answer: str = ""
    """The converter's key; ``<command>.<action>`` when empty."""
    properties: tuple[tuple[str, str], ...] = ()

    def path_keys(self) -> tuple[str, ...]:
        keys = []
        for piece in self.path.split("{")[1:]:
            keys.append(piece.split("}", 1)[0])
        return tuple(keys)


@dataclass(frozen=True)
class Action:
    """One action of a command, declared once."""

    command: str
    name: str
    help: str
    handler: str
    """``"module:function"``: ``function(context, options) -> Outcome``, imported when the action runs."""
    right: Right
    lock: bool = False
    """Holds the store's lock while it runs (it changes the store)."""
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    routes: tuple[Route, ...] = ()
    metavar: str | None = None
    """An action option that takes a value (``admin -setsafemode BOOL``); its value is kept under the action's
    name."""

    @property
    def flag(self) -> str:
        return f"-{self.name}"

    @property
    def dest(self) -> str:
        return self.name if self.metavar is not None else f"act_{self.name}"

    @property
    def key(self) -> str:
        """``<command>.<action>``: how the audit, the server's bodies and the messages name it."""
        return f"{self.command}.{self.name}"

    @property
    def options(self) -> tuple[str, ...]:
        return (*self.required, *self.optional)

    def option(self) -> Option:
        """The command-line option that chooses the action."""
        return Option(self.name, self.dest, self.help, self.metavar, self.flag)

    def load(self) -> Handler:
        return _load(self.handler)


@dataclass(frozen=True)
class CommandDeclaration:
    """A command: its actions (in the order ``--help`` lists them) and its options."""

    name: str
    actions: tuple[Action, ...]
    options: tuple[Option, ...]
    guard: str | None = None
    """``"module:function"`` (``function(context, options) -> None``) run before each action that takes the lock:
    it refuses what may not run now."""
    journal: str | None = None
    """``"module:attribute"``: the journaled steps of the command's multi-step actions, by the name their journal
    carries; interrupted ones are finished or undone before any command runs."""

    def action(self, name: str) -> Action:
        for item in self.actions:
            if item.name == name:
                return item
        raise KeyError(f"{self.name} has no action {name!r}")

    def supported(self) -> str:
        """The actions, as the "Invalid/missing" message lists them."""
        return ", ".join(item.name for item in self.actions)

    def all_options(self) -> tuple[Option, ...]:
        """Every command-line option: the actions, the command's options, the common ones."""
        return (*(item.option() for item in self.actions), *self.options, *COMMON)

    def option_by_dest(self, dest: str) -> Option:
        for item in (*self.options, *COMMON):
            if item.dest == dest:
                return item
        raise KeyError(f"{self.name} has no option {dest!r}")

    def __post_init__(self) -> None:
        known = {item.dest for item in (*self.options, *COMMON)}
        for item in self.actions:
            if item.command != self.name:
                raise ValueError(f"{item.key} is declared under {self.name}")
            unknown = [dest for dest in item.options if dest not in known]
            if unknown:
                raise ValueError(f"{item.key} names options {self.name} does not have: {', '.join(unknown)}")
            for route in item.routes:
                missing = [key for key in route.path_keys() if key not in item.options]
                missing += [dest for _, dest in route.properties if dest not in item.options]
                if route.body is not None and route.body not in item.options:
                    missing.append(route.body)
                if missing:
                    raise ValueError(f"{item.key}: route {route.path} reads options the action does not declare: "
                                     f"{', '.join(missing)}")


COMMON = (
    Option("url", "url", "Airflow's URL (default: FALCON_AIRFLOW_URL, else http://127.0.0.1:8080)", "URL"),
    Option("doAs", "do_as", "act on behalf of this user; recorded as Spark's proxy user of the entity's jobs", "USER"),
    Option("debug", "debug", "print the REST calls made (method, URL, status; never credentials)"),
    Option("json", "json", "print the result as JSON (same as --format json)"),
    Option("format", "format", "text (default) or json", "FORMAT", flag="--format"),
    Option("entities", "entities", "the entities folder (the store; default: FALCON_ENTITIES_DIR, else entities/)",
           "DIR", flag="--entities"),
)
"""Options of every command."""


def _load(target: str) -> Handler:
    module, _, name = target.partition(":")
    function: Handler = getattr(importlib.import_module(module), name)
    return function


def load(target: str) -> object:
    """The object a ``"module:attribute"`` declaration names."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _build() -> dict[str, CommandDeclaration]:
    from falcon_airflow.operate.declarations import admin, entity, extension, instance, metadata

    return {item.COMMAND.name: item.COMMAND for item in (entity, instance, admin, metadata, extension)}


@dataclass
class _Registry:
    commands: dict[str, CommandDeclaration] = field(default_factory=dict)

    def get(self) -> dict[str, CommandDeclaration]:
        if not self.commands:
            self.commands.update(_build())
        return self.commands


REGISTRY = _Registry()
"""The declared commands, by name (built on first use)."""


def commands() -> dict[str, CommandDeclaration]:
    """Every declared command, by name, in the order the command line lists them."""
    return REGISTRY.get()


def command(name: str) -> CommandDeclaration:
    return commands()[name]


def action(command_name: str, name: str) -> Action:
    return command(command_name).action(name)


def actions() -> Iterator[Action]:
    for declared in commands().values():
        yield from declared.actions
