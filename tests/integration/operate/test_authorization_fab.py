"""Falcon's authorization against a real Airflow with the FAB auth manager and users in its metadata database:
root (Admin: a superuser), ops (the feed's ACL owner, role User) and carl (role User, outside the ACL group).

Each command is allowed or refused as Falcon's default provider would, over ``falcon-airflow`` and ``airflow
falcon``; ``-doAs`` follows the proxy-user rules; the audit trail lists every attempt; no password is printed or
logged.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_cluster, ops_feed
from tests.integration.airflow_database import airflow_database
from tests.integration.databases.servers import Server
from tests.integration.ui.browser import (
    browser_or_fail,
    chromium,
    clear_run,
    open_clear_dialog,
    open_run,
    visit,
)

from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.settings import Settings
from falcon_airflow.provider.info import get_provider_info

from .harness import AIRFLOW, REPOSITORY, AirflowServer

pytest.importorskip("airflow.providers.fab", reason="apache-airflow-providers-fab is not installed")

pytestmark = pytest.mark.xdist_group("airflow-fab")

PASSWORDS = {"root": "Root-pw-4b1f0c2e", "ops": "Ops-pw-9d2a7e31", "carl": "Carl-pw-5e8c3b70",
             "uma": "Uma-pw-0a6d4f19", "vic": "Vic-pw-7f3e2b84"}
# uma holds only the ACL group's role, vic only another role: what they may do on the DAGs is the DAGs' own
# access_control (User and Admin may see every DAG anyway)
ROLES = {"root": "Admin", "ops": "User", "carl": "User", "uma": "users", "vic": "others"}
DAG = "falcon.feed.logs.retention.east"


@pytest.fixture(scope="module")
def fab(tmp_path_factory: pytest.TempPathFactory, airflow_postgres: Server) -> Iterator[AirflowServer]:
    root = tmp_path_factory.mktemp("fab-airflow")
    server = AirflowServer.prepare(root, airflow_database(airflow_postgres, "airflow_fab"))
    server.env.update({
        "AIRFLOW__CORE__AUTH_MANAGER": "airflow.providers.fab.auth_manager.fab_auth_manager.FabAuthManager",
        "AIRFLOW__FALCON__AUTHORIZATION_ENABLED": "True",
        "AIRFLOW__FALCON__DAG_ACCESS_CONTROL": "True",
        # ops is in the feed's ACL group; root may act as members of the User role from any host
        "AIRFLOW__FALCON__GROUPS.OPS": "users",
        "AIRFLOW__FALCON__PROXYUSER.ROOT.HOSTS": "*",
        "AIRFLOW__FALCON__PROXYUSER.ROOT.GROUPS": "users",
    })
    for name in ("east", "west"):
        (server.store / "clusters").mkdir(exist_ok=True)
        (server.store / "clusters" / f"{name}.xml").write_text(
            ops_cluster(name, storage=server.storage, colo=f"{name}-colo"), encoding="utf-8")
    (server.store / "feeds").mkdir()
    (server.store / "feeds" / "logs.xml").write_text(ops_feed("logs"), encoding="utf-8")
    server.airflow("db", "migrate")
    server.airflow("roles", "create", "users", "others")
    for user, role in ROLES.items():
        server.airflow("users", "create", "--username", user, "--password", PASSWORDS[user], "--role", role,
                       "--firstname", user, "--lastname", user, "--email", f"{user}@example.test")
    server.airflow("dags", "reserialize")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def falcon(server: AirflowServer, user: str, *argv: str) -> tuple[int, str, str]:
    env = {"FALCON_AIRFLOW_USER": user, "FALCON_AIRFLOW_PASSWORD": PASSWORDS[user]}
    # the deployment's configuration: its [falcon] policy and its [api] base_url, the API that proves who acts
    return server.run(*argv, env={key: server.env[key] for key in server.env
                                  if key.startswith(("AIRFLOW__FALCON", "AIRFLOW__API__"))}
                      | env)


def test_each_command_as_falcons_provider_decides(fab: AirflowServer) -> None:
    feed = ("-type", "feed", "-name", "logs")
    # the outsider: refused before anything changes, naming user, action, entity and right
    code, _, err = falcon(fab, "carl", "entity", *feed, "-schedule")
    assert code == 1
    assert "Permission denied: user=carl may not entity -schedule feed logs: missing the write right" in err
    assert falcon(fab, "carl", "entity", *feed, "-status")[0] == 1
    assert falcon(fab, "carl", "instance", *feed, "-kill", "-start", "2026-01-01T00:00Z")[0] == 1
    code, _, err = falcon(fab, "carl", "admin", "-setsafemode", "true")
    assert code == 1 and "user=carl does not have admin privilege" in err
    assert falcon(fab, "carl", "entity", "-type", "feed", "-list")[0] == 0  # names no entity: open
    assert falcon(fab, "carl", "admin", "-version")[0] == 0
    # claiming to be the owner needs the owner's password
    code, _, err = fab.run("entity", *feed, "-schedule", env={
        "FALCON_AIRFLOW_USER": "ops", "FALCON_AIRFLOW_PASSWORD": "Not-the-ops-password",
        **{key: value for key, value in fab.env.items() if key.startswith(("AIRFLOW__FALCON", "AIRFLOW__API__"))}})
    assert code == 1 and "Airflow did not accept the credentials of ops" in err
    # the owner schedules and suspends; the superuser (Admin role, read from FAB) resumes
    code, out, err = falcon(fab, "ops", "entity", *feed, "-schedule")
    assert code == 0, out + err
    assert falcon(fab, "ops", "entity", *feed, "-suspend")[0] == 0
    assert falcon(fab, "root", "entity", *feed, "-resume")[0] == 0
    assert falcon(fab, "ops", "admin", "-status")[0] == 1  # the owner is no admin
    # -doAs: root may act as ops (in users), not as carl; the refusal records no proxy user
    code, _, err = falcon(fab, "root", "entity", *feed, "-touch", "-doAs", "carl")
    assert code == 1 and "carl is not in proxyuser.root.groups=users" in err
    code, out, err = falcon(fab, "root", "entity", *feed, "-suspend", "-doAs", "ops")
    assert code == 0, out + err
    # every attempt is in the audit trail, readable by an admin
    code, out, err = falcon(fab, "root", "admin", "-audit", "-json")
    assert code == 0, err
    entries = json.loads(out)["entries"]
    outcome = [(entry["user"], entry["doAs"], entry["action"], entry["result"]) for entry in entries]
    assert outcome[:4] == [("carl", None, "schedule", "DENIED"), ("carl", None, "status", "DENIED"),
                           ("carl", None, "kill", "DENIED"), ("carl", None, "setsafemode", "DENIED")]
    assert ("ops", None, "schedule", "DENIED") in outcome  # the wrong password
    assert ("ops", None, "schedule", "SUCCEEDED") in outcome
    assert ("root", "carl", "touch", "DENIED") in outcome and ("root", "ops", "suspend", "SUCCEEDED") in outcome


@pytest.mark.skipif("falcon_airflow.cli.airflow.airflow_cli_commands" not in get_provider_info().get("cli", []),
                    reason="the provider info lists no airflow_cli_commands in 'cli' yet")
def test_airflow_falcon_applies_the_same_rules(fab: AirflowServer) -> None:
    def airflow_falcon(user: str, *argv: str) -> subprocess.CompletedProcess[str]:
        env = {**fab.env, **fab.credentials, "FALCON_AIRFLOW_USER": user, "FALCON_AIRFLOW_PASSWORD": PASSWORDS[user]}
        return subprocess.run([str(AIRFLOW), "falcon", *argv], env=env, capture_output=True, text=True,
                              timeout=180, check=False)

    refused = airflow_falcon("carl", "entity", "-type", "feed", "-name", "logs", "-suspend")
    assert refused.returncode == 1 and "user=carl may not entity -suspend feed logs" in refused.stderr
    allowed = airflow_falcon("ops", "entity", "-type", "feed", "-name", "logs", "-status")
    assert allowed.returncode == 0, allowed.stderr[-2000:]


def test_the_acl_group_gets_the_entitys_dags_in_airflow(fab: AirflowServer) -> None:
    def client(user: str) -> AirflowClient:
        return AirflowClient(Settings(url=fab.url, entities=fab.store, user=user, password=PASSWORDS[user]))

    # the feed's ACL group (users, permission *) may read and pause its DAG; another role may not see it
    assert client("uma").dag(DAG) is not None
    assert client("uma").set_paused(DAG, True)["is_paused"] is True
    with pytest.raises(AirflowError) as refused:
        client("vic").dag(DAG)
    assert refused.value.status == 403
    with pytest.raises(AirflowError):
        client("vic").set_paused(DAG, False)
    assert client("root").dag(DAG)["is_paused"] is True  # type: ignore[index]


def test_no_password_is_printed_or_logged(fab: AirflowServer) -> None:
    for user in PASSWORDS:
        for argv in (("entity", "-type", "feed", "-name", "logs", "-status", "-debug"), ("admin", "-audit")):
            _, out, err = falcon(fab, user, *argv)
            assert not any(password in out + err for password in PASSWORDS.values())
    state = Path(fab.credentials["FALCON_STORE_DIR"])
    for path in [*state.rglob("*"), *fab.home.rglob("*.log")]:
        if path.is_file():
            data = path.read_bytes()
            assert not any(password.encode() in data for password in PASSWORDS.values()), path


# -- the Airflow UI ------------------------------------------------------------------------------------------------

SCREENSHOT = REPOSITORY / "docs" / "images" / "clear-refused.png"


def fab_sign_in(page: Any, url: str, user: str) -> None:
    """The FAB auth manager's login form."""
    visit(page, f"{url}/auth/login/")
    page.locator("input#username").fill(user)
    page.locator("input#password").fill(PASSWORDS[user])
    page.locator("input[type=submit]").click()
    page.wait_for_url(re.compile(r"^(?!.*/auth/login).*$"))


def test_in_the_ui_the_acl_group_clears_the_entitys_runs_and_an_outsider_cannot(
        fab: AirflowServer, tmp_path: Path) -> None:
    """Two users who both see every DAG (FAB's Viewer role): una is also in the feed's ACL group (role users, whose
    access_control on the feed's DAGs allows editing), val is not (role others). On the run's page una's Clear makes
    the run run again; val's cannot be confirmed (Airflow refuses its dry run) and the run stays as it was."""
    browser_or_fail()
    from playwright.sync_api import expect

    # Changing a run needs can_edit on the DAG (the ACL group's, from access_control) and the global edit right on
    # runs and task instances, which both roles hold: only the DAG-level right tells una and val apart.
    fab.airflow("roles", "add-perms", "users", "others", "-r", "DAG Runs", "Task Instances",
                "-a", "can_edit", "can_create")
    for user, group in (("una", "users"), ("val", "others")):
        PASSWORDS.setdefault(user, f"{user.title()}-pw-3c9e61d0")
        fab.airflow("users", "create", "--username", user, "--password", PASSWORDS[user], "--role", "Viewer",
                    "--firstname", user, "--lastname", user, "--email", f"{user}@example.test")
        fab.airflow("users", "add-role", "--username", user, "--role", group)
    admin = AirflowClient(Settings(url=fab.url, entities=fab.store, user="root", password=PASSWORDS["root"]))
    run_id = "manual__ui-clear"
    admin.trigger(DAG, datetime(2026, 5, 1, tzinfo=UTC), run_id=run_id)
    fab.worker(DAG, run_id, run_state="success", tasks={"retention": ("success", 1)})

    def state() -> str:
        run = admin.run(DAG, run_id)
        assert run is not None
        return str(run["state"])

    with chromium(tmp_path / "val") as page:
        fab_sign_in(page, fab.url, "val")
        open_run(page, f"{fab.url}/dags/{DAG}/runs/{run_id}")  # val sees the run (Viewer) ...
        dialog = open_clear_dialog(page)
        page.wait_for_timeout(5000)  # ... but Airflow answers the clear's dry run 403: nothing to confirm
        expect(dialog.get_by_role("button", name="Confirm")).to_be_disabled()
        page.screenshot(path=str(tmp_path / "clear-refused.png"))
    assert state() == "success", "an outsider's Clear must not rerun the instance"

    with chromium(tmp_path / "una") as page:
        fab_sign_in(page, fab.url, "una")
        open_run(page, f"{fab.url}/dags/{DAG}/runs/{run_id}")
        clear_run(page)
    deadline = time.monotonic() + 30
    while state() == "success" and time.monotonic() < deadline:
        time.sleep(1)
    assert state() == "queued", "the ACL group's Clear reruns the instance"
    if os.environ.get("FALCON_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(tmp_path / "clear-refused.png", SCREENSHOT)


# -- Falcon's console under FAB --------------------------------------------------------------------------------------

FEED_STATUS_AFTER = {"SUBMITTED": ("schedule", "RUNNING"), "RUNNING": ("suspend", "SUSPENDED"),
                     "SUSPENDED": ("resume", "RUNNING")}


def console_session(server: AirflowServer, user: str) -> Any:
    """What a browser signed in to the UI as ``user`` sends: FAB's token in Airflow's session cookie."""
    import httpx

    answer = httpx.post(f"{server.url}/auth/token", json={"username": user, "password": PASSWORDS[user]}, timeout=60)
    assert answer.status_code in (200, 201), answer.text
    client = httpx.Client(base_url=f"{server.url}/falcon/console/api", timeout=120)
    client.cookies.set("_token", answer.json()["access_token"])
    return client


def feed_status(server: AirflowServer) -> str:
    code, out, err = falcon(server, "ops", "entity", "-type", "feed", "-name", "logs", "-status")
    assert code == 0, err
    return out.strip()


def test_the_console_lists_and_acts_for_fab_users(fab: AirflowServer, tmp_path: Path) -> None:
    """The console under the FAB auth manager: the owner sees the feed and may act on it, the outsider neither sees
    it nor gets a button, and a forged write (the session cookie alone, a wrong token, the outsider's own) is
    refused with 403; the owner's action is what ``entity -status`` then says, audited as the command line's."""
    with console_session(fab, "ops") as ops, console_session(fab, "carl") as carl:
        listed = ops.get("/entities", params={"type": "feed"})
        assert listed.status_code == 200, listed.text
        assert [(item["name"], item["owner"]) for item in listed.json()["entities"]] == [("logs", "ops")]
        assert carl.get("/entities", params={"type": "feed"}).json()["total"] == 0  # outside the ACL
        before = feed_status(fab)
        offered = ops.get("/actions/feed/logs").json()
        # the owner may run every entity action; the page offers those the status entity -status reports allows
        assert offered["status"] == before.split()[0]
        assert set(offered["entity"]) == {"SUBMITTED": {"schedule", "delete"}, "RUNNING": {"suspend", "delete"},
                                          "SUSPENDED": {"resume", "delete"}}[offered["status"]]
        assert carl.get("/actions/feed/logs").status_code == 403

        action, expected = FEED_STATUS_AFTER[before.split()[0]]
        assert ops.post(f"/actions/feed/logs/{action}").status_code == 403  # the cookie alone
        assert ops.post(f"/actions/feed/logs/{action}",
                        headers={"X-Falcon-Console-Token": "1999999999.forged"}).status_code == 403
        issued = carl.get("/write-token").json()
        refused = carl.post(f"/actions/feed/logs/{action}", headers={issued["header"]: issued["token"]})
        assert refused.status_code == 403 and "user=carl" in refused.json()["error"]
        assert feed_status(fab) == before

        issued = ops.get("/write-token").json()
        done = ops.post(f"/actions/feed/logs/{action}", headers={issued["header"]: issued["token"]})
        assert done.status_code == 200, done.text
        assert feed_status(fab).startswith(expected)
    trail = [json.loads(line) for line in
             (Path(fab.credentials["FALCON_STORE_DIR"]) / "audit.log").read_text().splitlines()]
    console_lines = [(line["user"], line["result"]) for line in trail
                     if line.get("action") == action and line.get("name") == "logs"][-3:]
    assert console_lines == [("carl", "DENIED"), ("ops", "STARTED"), ("ops", "SUCCEEDED")]

    browser_or_fail()
    from playwright.sync_api import expect

    with chromium(tmp_path / "carl-console") as page:
        fab_sign_in(page, fab.url, "carl")
        visit(page, f"{fab.url}/falcon/console/#/entity/feed/logs")
        expect(page.locator("#error")).to_contain_text("Permission denied")
        expect(page.locator("#entity-actions button")).to_have_count(0)
    with chromium(tmp_path / "ops-console") as page:
        fab_sign_in(page, fab.url, "ops")
        visit(page, f"{fab.url}/falcon/console/#/entity/feed/logs")
        expect(page.locator("#entity-action-buttons button[data-action='suspend']")).to_be_visible()
        expect(page.locator("#entity-facts")).to_contain_text(expected)
