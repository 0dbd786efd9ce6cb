"""Each colo brought to what the Prism's record wants of an entity, one step at a time, skipping what the colo is
known to hold already: this is what makes a request sent again finish only on the colos that missed it, and what
``prism sync`` runs for every entity.

A colo's steps: its definition (``submit`` when it holds none - a colo server takes an identical definition again
without change - or ``update`` when it holds another version), then its schedule state (``schedule``, ``resume`` or
``suspend``). What a colo answered SUCCEEDED is written to the record at once, so a colo that fails half-way is
asked only for the rest next time.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import quote

import httpx

from falcon_airflow.server.bodies import ResultStatus
from falcon_airflow.server.prism.colos import Colo
from falcon_airflow.server.prism.forwarding import Forwarder, Identity
from falcon_airflow.server.prism.merging import ColoResult, read_api_result
from falcon_airflow.store.prism_record import Copy, PrismRecord, Wanted

DELETED = "DELETED"
"""The wanted state of an entity whose delete some colo has not done yet: a sync removes it there, never sends it
back to the colos that dropped it."""
ALREADY_REGISTERED = "already registered"
"""The colo server's refusal of a submit of a name it holds with another definition."""


@dataclass(frozen=True)
class Converger:
    record: PrismRecord
    forwarder: Forwarder
    identity: Identity
    do_as: str | None = None

    def query(self) -> list[tuple[str, str]]:
        return [("doAs", self.do_as)] if self.do_as else []

    async def _call(self, http: httpx.AsyncClient, colo: Colo, method: str, path: str,
                    body: bytes | None = None) -> ColoResult:
        answer = await self.forwarder.send(http, colo, method, path, self.identity, query=self.query(), body=body,
                                           content_type="text/xml" if body is not None else None)
        if not answer.reached:
            return ColoResult(colo.name, ResultStatus.FAILED, answer.failure())
        if answer.media_type.endswith("xml") and answer.content.lstrip().startswith(b"<"):
            return read_api_result(colo.name, answer.content)
        # a 401/403 (the colo refused the caller) or 406 carries no APIResult: its text is the reason
        return ColoResult(colo.name, ResultStatus.FAILED, answer.failure())

    async def definition(self, http: httpx.AsyncClient, colo: Colo, wanted: Wanted,
                         copy: Copy | None) -> tuple[ColoResult | None, Copy | None]:
        """The colo holds the wanted definition afterwards, or the failure says why not; (None, copy) when it
        held it already."""
        if copy is not None and copy.digest == wanted.digest:
            return None, copy
        kind, name = quote(wanted.kind), quote(wanted.name)
        if copy is None:
            result = await self._call(http, colo, "POST", f"api/entities/submit/{kind}", wanted.content)
            if result.status == ResultStatus.FAILED and ALREADY_REGISTERED in result.message:
                result = await self._call(http, colo, "POST", f"api/entities/update/{kind}/{name}", wanted.content)
        else:
            result = await self._call(http, colo, "POST", f"api/entities/update/{kind}/{name}", wanted.content)
        if result.status != ResultStatus.SUCCEEDED:
            return result, copy
        state = copy.schedule_state if copy is not None else None
        held = Copy(wanted.kind, wanted.name, colo.name, wanted.digest, state)
        await asyncio.to_thread(self.record.held, wanted.kind, wanted.name, colo.name, wanted.digest, state)
        return result, held

    async def state(self, http: httpx.AsyncClient, colo: Colo, wanted: Wanted, copy: Copy) -> ColoResult | None:
        """The colo's schedule state made the wanted one; None when it was already."""
        target, now = wanted.schedule_state, copy.schedule_state
        if target is None or target == now:
            return None
        kind, name = quote(wanted.kind), quote(wanted.name)
        steps: list[str]
        if target == "RUNNING":
            steps = ["resume"] if now == "SUSPENDED" else ["schedule"]
        else:  # SUSPENDED
            steps = ["suspend"] if now == "RUNNING" else ["schedule", "suspend"]
        result: ColoResult | None = None
        for step in steps:
            result = await self._call(http, colo, "POST", f"api/entities/{step}/{kind}/{name}")
            if result.status != ResultStatus.SUCCEEDED:
                return result
            now = "SUSPENDED" if step == "suspend" else "RUNNING"
            await asyncio.to_thread(self.record.held, wanted.kind, wanted.name, colo.name, copy.digest, now)
        return result

    async def converge(self, http: httpx.AsyncClient, colo: Colo, wanted: Wanted, copy: Copy | None, *,
                       with_state: bool = True) -> ColoResult:
        """The colo made to hold ``wanted`` (and its schedule state, ``with_state``); an entity being deleted
        removed from it."""
        if wanted.schedule_state == DELETED:
            if copy is None:
                return ColoResult(colo.name, ResultStatus.SUCCEEDED,
                                  f"{wanted.name}({wanted.kind}) is already deleted here: unchanged")
            return await self.remove(http, colo, wanted.kind, wanted.name)
        done, held = await self.definition(http, colo, wanted, copy)
        if held is None or (done is not None and done.status != ResultStatus.SUCCEEDED):
            assert done is not None
            return done
        changed = await self.state(http, colo, wanted, held) if with_state else None
        if changed is not None:
            return changed
        if done is not None:
            return done
        what = held.schedule_state or "SUBMITTED"
        return ColoResult(colo.name, ResultStatus.SUCCEEDED,
                          f"{wanted.name}({wanted.kind}) is already {what} with this definition here: unchanged")

    async def remove(self, http: httpx.AsyncClient, colo: Colo, kind: str, name: str) -> ColoResult:
        """The entity deleted on the colo (a colo server's delete of an entity it does not hold succeeds)."""
        result = await self._call(http, colo, "DELETE", f"api/entities/delete/{quote(kind)}/{quote(name)}")
        if result.status == ResultStatus.SUCCEEDED:
            await asyncio.to_thread(self.record.dropped, kind, name, colo.name)
        return result
