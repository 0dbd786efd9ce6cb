"""Falcon's own entity XMLs: each file reads to the schema verdict recorded in corpus.tsv."""

from __future__ import annotations

import csv
from pathlib import Path

from falcon_airflow.parsing import parse_file


def test_corpus_files_get_their_schema_verdict(shared: Path) -> None:
    corpus = shared / "conformance" / "corpus"
    with open(corpus / "corpus.tsv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert rows, "corpus.tsv lists no files"

    wrong = []
    for row in rows:
        parsed = parse_file(corpus / row["file"], display=row["file"])
        verdict = "invalid" if parsed.has_errors else "valid"
        if verdict != row["schema_verdict"]:
            found = "; ".join(f"{issue.rule} line {issue.line}: {issue.message}" for issue in parsed.issues)
            wrong.append(f"{row['file']}: expected {row['schema_verdict']}, got {verdict} ({found or 'no issues'})")
        elif verdict == "invalid":
            # an invalid file must say where: every corpus failure is a reading or schema problem with a line
            assert all(issue.rule in ("XML", "XSD") and issue.line for issue in parsed.issues), row["file"]
        else:
            assert parsed.entity is not None and parsed.entity_type is not None, row["file"]
            assert parsed.entity_type.value == row["entity"], row["file"]

    assert not wrong, "\n".join(wrong)
