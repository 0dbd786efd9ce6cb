"""Runs a Falcon process's Hive script (workflow engine ``hive``) on Spark SQL.

Arguments: ``--script PATH`` (a local path or any Hadoop file-system URI), or ``--query TEXT`` (an Oozie hive
action's inline query), and ``--var name=value`` (repeatable):
Falcon's workflow properties and the process's properties. Variables are substituted as Hive does for
``${hivevar:name}``, ``${hiveconf:name}`` and ``${name}``; unknown references stay as written. Statements are
split on ``;`` outside quotes and comments and run one after the other; the first failure stops the script.
"""

from __future__ import annotations

import argparse
import re
import sys

_REFERENCE = re.compile(r"\$\{(?:hivevar:|hiveconf:)?([A-Za-z_][A-Za-z0-9_.]*)\}")


def substitute(text: str, variables: dict[str, str]) -> str:
    return _REFERENCE.sub(lambda match: variables.get(match[1], match[0]), text)


def statements(script: str) -> list[str]:
    """Split a script into statements on ``;``, ignoring those inside quotes and ``--`` comments."""
    found, current, quote, index = [], [], "", 0
    while index < len(script):
        char = script[index]
        if quote:
            current.append(char)
            if char == "\\" and index + 1 < len(script):
                current.append(script[index + 1])
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
            current.append(char)
        elif script.startswith("--", index):
            end = script.find("\n", index)
            index = len(script) if end < 0 else end
            continue
        elif char == ";":
            found.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        index += 1
    found.append("".join(current).strip())
    return [statement for statement in found if statement]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive_script.py", description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--script")
    source.add_argument("--query")
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    variables = {}
    for item in args.var:
        name, sign, value = item.partition("=")
        if not sign:
            parser.error(f"--var takes NAME=VALUE, not {item!r}")
        variables[name] = value

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("falcon-hive-script")
    try:
        spark = builder.enableHiveSupport().getOrCreate()
    except Exception:  # no Hive classes on the cluster: plain Spark SQL still runs most scripts
        spark = builder.getOrCreate()
    if args.query is not None:
        script = args.query
    else:
        script = "\n".join(row[0] for row in spark.read.text(args.script, wholetext=True).collect())
    for number, statement in enumerate(statements(substitute(script, variables)), start=1):
        print(f"hive_script: statement {number}: {statement.splitlines()[0][:200]}", flush=True)
        spark.sql(statement).show(20, truncate=False) if statement.lower().startswith(("select", "show")) \
            else spark.sql(statement)
    return 0


if __name__ == "__main__":
    sys.exit(main())
