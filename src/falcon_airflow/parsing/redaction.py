"""A stored definition as it is shown to a reader: every secret it holds masked, everything else as written.

The store keeps the definition as submitted (the task reads a ``password-text`` from it when it runs); whoever may
read an entity sees it through :func:`redact_definition` (``entity -definition`` and any other printing of a stored
definition). Masked, with :data:`~falcon_airflow.core.secrets.MASK`:

* a datasource's ``<passwordText>``;
* the value of a ``<property>`` whose name holds a secret (``fs.s3a.secret.key``, ``*password*``, ``*token*`` ...,
  see :func:`~falcon_airflow.core.secrets.is_secret_name`), in every entity type;
* the credentials of a URL in any attribute (an endpoint's ``//user:password@``, ``?password=``, ``;password=``, a
  location ``s3a://key:secret@bucket/``);
* the value of a secret setting inside ``<spark-opts>`` (``--conf spark.hadoop.fs.s3a.secret.key=...``).

A definition holding none of these is returned byte for byte; one the XML parser refuses is masked textually.
"""

from __future__ import annotations

import re

from lxml import etree

from falcon_airflow.core.secrets import MASK, is_secret_name, redact_url, url_secrets

_SETTING = re.compile(r"(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)=(?P<value>\"[^\"]*\"|'[^']*'|\S+)")
_PASSWORD_TEXT = re.compile(r"(<(?:[\w.\-]+:)?passwordText\b[^>]*>)(.*?)(</(?:[\w.\-]+:)?passwordText\s*>)", re.DOTALL)
_PROPERTY_TAG = re.compile(r"<(?:[\w.\-]+:)?property\b[^>]*>")
_ATTRIBUTE = re.compile(r"(?P<name>[\w.\-:]+)\s*=\s*(?P<quote>[\"'])(?P<value>.*?)(?P=quote)", re.DOTALL)


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def redact_settings(text: str) -> str:
    """``key=value`` settings in free text (spark-opts, a properties file) with secret values masked."""

    def mask(match: re.Match[str]) -> str:
        return f"{match.group('key')}={MASK}" if is_secret_name(match.group("key")) else match.group(0)

    return _SETTING.sub(mask, text)


def redact_properties_file(text: str) -> str:
    """A Java properties text (``name=value`` / ``name: value`` lines) with secret values masked."""
    lines = []
    for line in text.splitlines(keepends=True):
        match = re.match(r"^(\s*)([^#!\s][^=:\s]*)(\s*[=:]\s*|\s+)(.*?)(\r?\n?)$", line)
        if match and match.group(4) and is_secret_name(match.group(2)):
            line = f"{match.group(1)}{match.group(2)}{match.group(3)}{MASK}{match.group(5)}"
        lines.append(line)
    return "".join(lines)


def _redact_tree(root: etree._Element) -> bool:
    changed = False
    for element in root.iter():
        name = _local(element.tag)
        if name == "passwordText" and (element.text or "").strip():
            element.text = MASK
            changed = True
        if name == "property" and is_secret_name(element.get("name") or "") and element.get("value"):
            element.set("value", MASK)
            changed = True
        if name == "spark-opts" and element.text:
            masked = redact_settings(element.text)
            if masked != element.text:
                element.text = masked
                changed = True
        for attribute, raw in element.attrib.items():
            value = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
            if url_secrets(value) or re.search(r"//[^/?#\s]*:[^/?#\s]*@", value):
                element.set(attribute, redact_url(value))
                changed = True
    return changed


def _redact_text(text: str) -> str:
    """Textual masking for a definition the parser refuses (it is shown as stored, secrets aside)."""
    result = _PASSWORD_TEXT.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)

    def tag(match: re.Match[str]) -> str:
        attributes = {found.group("name"): found.group("value") for found in _ATTRIBUTE.finditer(match.group(0))}
        if not is_secret_name(attributes.get("name", "")):
            return match.group(0)
        return _ATTRIBUTE.sub(lambda found: f"{found.group('name')}={found.group('quote')}{MASK}"
                              f"{found.group('quote')}" if found.group("name") == "value" else found.group(0),
                              match.group(0))

    result = _PROPERTY_TAG.sub(tag, result)
    return _ATTRIBUTE.sub(lambda found: f"{found.group('name')}={found.group('quote')}"
                          f"{redact_url(found.group('value'))}{found.group('quote')}", result)


def redact_definition(data: bytes) -> str:
    """The definition ``data`` (UTF-8 XML) with its secrets masked (see the module docstring)."""
    text = data.decode("utf-8", "replace")
    if "<!DOCTYPE" in text:
        return _redact_text(text)
    try:
        parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False,
                                 remove_blank_text=False, remove_comments=False)
        tree = etree.ElementTree(etree.fromstring(data, parser))
    except (etree.XMLSyntaxError, ValueError):
        return _redact_text(text)
    if not _redact_tree(tree.getroot()):
        return text
    # What surrounds the root element (declaration, comments, line breaks) is kept as written.
    prolog = re.match(r"^\ufeff?\s*(?:(?:<\?.*?\?>|<!--.*?-->)\s*)*", text, re.DOTALL)
    body = etree.tostring(tree.getroot(), encoding="unicode", with_tail=False)
    return (prolog.group(0) if prolog else "") + body + _epilog(text)


def _epilog(text: str) -> str:
    """The comments, processing instructions and white space after the root element."""
    end = len(text)
    while True:
        kept = text[:end].rstrip()
        if kept.endswith("-->") and "<!--" in kept:
            end = kept.rfind("<!--")
        elif kept.endswith("?>") and "<?" in kept:
            end = kept.rfind("<?")
        else:
            return text[len(kept):]
