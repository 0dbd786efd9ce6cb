"""Telling secrets apart and keeping them out of what is shown: setting names, URLs, free text.

One vocabulary for every place a secret could surface: the spark-submit command line (secret settings go to a
private properties file instead), lineage names (no user-info), messages and logs (masked), and a stored entity
shown to a reader (masked). Standard library only: the Spark jobs get this package shipped.
"""

from __future__ import annotations

import re

MASK = "********"

_SECRET_TOKENS = frozenset({"password", "passwd", "passphrase", "pwd", "secret", "secrets", "token", "tokens",
                            "credential", "credentials", "sas"})
_KEY_QUALIFIERS = frozenset({"access", "secret", "account", "private", "encryption", "api", "signing", "client",
                             "master", "auth", "session", "shared"})
_NOT_A_KEY_VALUE = frozenset({"size", "bits", "length", "algorithm", "algo", "provider", "store", "type", "name",
                              "id", "file", "path", "class", "format", "generator", "factory"})
_DESCRIBES_A_SECRET = frozenset({"path", "provider", "providers", "class", "enabled", "type", "file", "dir",
                                 "location", "uri", "expiry", "expiration", "timeout", "interval", "lifetime", "ttl",
                                 "renewal", "alias", "kind", "service", "required", "mode"})
"""A last word that makes a name about a secret rather than the secret itself (``...credential.provider.path``,
``...token.renewal``, ``...password.file``)."""
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _tokens(name: str) -> list[str]:
    """``fs.s3a.secret.key`` -> fs, s3a... ; ``awsSecretAccessKey`` -> aws, secret, access, key (camel case split)."""
    return [word.lower() for part in re.split(r"[^A-Za-z0-9]+", name) for word in _WORDS.findall(part)]


def is_secret_name(name: str) -> bool:
    """Whether a setting or option named ``name`` holds a secret: a password, secret, token or credential, or an
    access/secret/account/private/encryption key (``fs.s3a.access.key``, ``fs.azure.account.key.<account>...``,
    ``spark.hadoop.fs.s3a.session.token``, ``javax.net.ssl.trustStorePassword``)."""
    tokens = _tokens(name)
    if tokens and tokens[-1] in _DESCRIBES_A_SECRET:
        return False
    lowered = name.lower()
    if any(token in _SECRET_TOKENS for token in tokens) or any(
            word in lowered for word in ("password", "passwd", "secret", "credential")):
        return True
    for index, token in enumerate(tokens):
        if token != "key" or index == 0 or tokens[index - 1] not in _KEY_QUALIFIERS:
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if following not in _NOT_A_KEY_VALUE:
            return True
    return False


_USER_KEYS = frozenset({"user", "username", "user_name", "uid", "userid", "user_id", "login"})
_OPTION = re.compile(r"(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)(?P<sep>\s*=\s*)(?P<value>[^;&,)(\s]*)")
_USER_INFO = re.compile(r"(?P<head>//)(?P<info>[^/?#;\s]*)@")
"""User-info up to the last ``@`` of the authority (a password may hold an ``@`` itself)."""
_ORACLE_USER = re.compile(r"(?P<head>\bjdbc:oracle:[a-z0-9]+:)(?P<info>[^@/\s]*/[^@\s]*)@", re.IGNORECASE)
"""Oracle's ``jdbc:oracle:thin:user/password@host:1521:sid`` (and ``@//host/service``)."""


def _is_credential_option(key: str) -> bool:
    return key.lower() in _USER_KEYS or is_secret_name(key)


def url_secrets(text: str) -> list[str]:
    """What secret-bearing parts a URL (a JDBC URL of any vendor's form) carries, as phrases for a message:
    ``user-info with a password``, ``option 'password'`` ... Empty when it carries none. A user name alone
    (``//alice@host``, ``user=alice``) is not a secret."""
    found: list[str] = []
    oracle = _ORACLE_USER.search(text)
    if oracle is not None:
        found.append("a user/password before '@'")
    for match in _USER_INFO.finditer(text):
        if ":" in match.group("info"):
            found.append("user-info with a password (user:password@)")
    for match in _OPTION.finditer(text):
        if is_secret_name(match.group("key")):
            found.append(f"option '{match.group('key')}'")
    return list(dict.fromkeys(found))


def redact_url(text: str) -> str:
    """``text`` with every credential of a URL masked: user-info (``//user:pass@`` and ``//user@``), Oracle's
    ``user/password@``, and the values of user, password, secret, token ... options in any separator style
    (``?a=b&c=d``, ``;a=b``, DB2's ``:a=b;``, MySQL's ``(password=x)``, Teradata's ``,PASSWORD=x``)."""
    result = _ORACLE_USER.sub(lambda m: f"{m.group('head')}{MASK}@", text)
    result = _USER_INFO.sub(lambda m: f"{m.group('head')}{MASK}@", result)

    def option(match: re.Match[str]) -> str:
        if _is_credential_option(match.group("key")) and match.group("value"):
            return f"{match.group('key')}{match.group('sep')}{MASK}"
        return match.group(0)

    return _OPTION.sub(option, result)


def redact_text(text: str) -> str:
    """Free text (a driver's error message, a log line) with URL credentials masked as :func:`redact_url` does,
    and ``password: x`` phrases masked."""
    result = redact_url(text)
    return re.sub(r"(?i)\b(password|passwd|pwd|secret|token)(\s*:\s*)(?!\*{8})(\S+)",
                  lambda m: f"{m.group(1)}{m.group(2)}{MASK}", result)
