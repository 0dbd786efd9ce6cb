"""The bundle token: a key of its own derived from the deployment's secret, a short life, clock skew tolerated, and
nothing else accepted."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from falcon_airflow.server.authentication import SECRET_CONTEXT
from falcon_airflow.store.bundle_token import (
    CLOCK_SKEW_SECONDS,
    SCHEME,
    VALIDITY_SECONDS,
    BundleKeyMissing,
    BundleTokenError,
    ConfigLookup,
    authorization,
    bundle_key,
    check_authorization,
)

NOW = 1_800_000_000.0


def config(**values: str) -> ConfigLookup:
    settings = {("api_auth", "jwt_secret"): values.get("jwt_secret"),
                ("falcon", "store_bundle_secret"): values.get("store_bundle_secret")}
    return lambda section, key: settings.get((section, key))


def test_the_key_is_derived_from_jwt_secret_under_a_purpose_of_its_own() -> None:
    key = bundle_key(config(jwt_secret="shared"))
    assert key not in (b"shared", hmac.new(b"shared", SECRET_CONTEXT, hashlib.sha256).digest())
    assert key == bundle_key(config(jwt_secret="shared"))
    assert key != bundle_key(config(jwt_secret="other"))
    # a secret of its own wins, so that jwt_secret can stay on the components that sign Airflow's tokens
    own = bundle_key(config(jwt_secret="shared", store_bundle_secret="bundle-only"))
    assert own == bundle_key(config(store_bundle_secret="bundle-only")) != key


def test_without_a_secret_there_is_no_key() -> None:
    with pytest.raises(BundleKeyMissing, match=r"store_bundle_secret.*jwt_secret"):
        bundle_key(config(jwt_secret="  "))


def test_a_fresh_token_is_accepted_within_its_life_and_the_clock_skew() -> None:
    key = bundle_key(config(jwt_secret="shared"))
    header = authorization(key, now=NOW)
    assert header.startswith(f"{SCHEME} ")
    check_authorization(key, header, now=NOW)
    check_authorization(key, header, now=NOW + VALIDITY_SECONDS + CLOCK_SKEW_SECONDS - 1)  # a server clock ahead
    check_authorization(key, header, now=NOW - CLOCK_SKEW_SECONDS)  # a server clock behind
    with pytest.raises(BundleTokenError, match="expired"):
        check_authorization(key, header, now=NOW + VALIDITY_SECONDS + CLOCK_SKEW_SECONDS + 1)


def test_a_token_living_longer_than_a_fresh_one_is_refused() -> None:
    key = bundle_key(config(jwt_secret="shared"))
    with pytest.raises(BundleTokenError, match="too far ahead"):
        check_authorization(key, authorization(key, now=NOW, validity=86400), now=NOW)


@pytest.mark.parametrize("header", [
    None, "", "Bearer abc", "FalconBundle", "falconbundle 1.2", "FalconBundle 123",
    "FalconBundle x.0000000000000000000000000000000000000000000000000000000000000000",
    "FalconBundle 1800000060." + "g" * 64, "FalconBundle ١٨٠٠." + "0" * 64,
])
def test_malformed_headers_are_refused(header: str | None) -> None:
    with pytest.raises(BundleTokenError):
        check_authorization(bundle_key(config(jwt_secret="shared")), header, now=NOW)


def test_another_key_or_a_changed_expiry_breaks_the_signature() -> None:
    key = bundle_key(config(jwt_secret="shared"))
    header = authorization(key, now=NOW)
    with pytest.raises(BundleTokenError, match="signature"):
        check_authorization(bundle_key(config(jwt_secret="other")), header, now=NOW)
    expiry, signature = header.split(" ", 1)[1].split(".")
    with pytest.raises(BundleTokenError, match="signature"):
        check_authorization(key, f"{SCHEME} {int(expiry) + 1}.{signature}", now=NOW)
