"""A local SMTP server (aiosmtpd) on 127.0.0.1 that keeps every mail it receives, and Airflow pointed at it."""

from __future__ import annotations

import contextlib
import email
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

import pytest


@dataclass
class Mailbox:
    port: int
    mails: list[tuple[list[str], Message]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's handler hook
        self.mails.append((list(envelope.rcpt_tos), email.message_from_bytes(envelope.content)))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def mailbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    """A running SMTP server, and Airflow's [smtp] settings naming it (no TLS, no login)."""
    from aiosmtpd.controller import Controller

    box = Mailbox(port=_free_port())
    controller = Controller(box, hostname="127.0.0.1", port=box.port, ready_timeout=30)
    controller.start()
    for key, value in {"SMTP_HOST": "127.0.0.1", "SMTP_PORT": str(box.port), "SMTP_STARTTLS": "False",
                       "SMTP_SSL": "False", "SMTP_MAIL_FROM": "falcon@localhost", "SMTP_TIMEOUT": "10",
                       "SMTP_RETRY_LIMIT": "1"}.items():
        monkeypatch.setenv(f"AIRFLOW__SMTP__{key}", value)
    monkeypatch.setenv("AIRFLOW__EMAIL__EMAIL_BACKEND", "airflow.utils.email.send_email_smtp")
    try:
        yield box
    finally:
        controller.stop()


def html_of(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            return payload.decode() if isinstance(payload, bytes) else str(payload)
    return ""
