"""The shape of certificates dumped as text by OpenSSL (``openssl x509 -text``, one after another over a bundle split
per certificate, or ``openssl pkcs7 -print_certs -text`` of ``openssl crl2pkcs7 -nocrl -certfile bundle.crt``), for
:mod:`scratchfs.api.shape`: how many certificates and each one's subject (its ``CN``, else its ``OU``, else its
``O``, else the whole subject) at the line its ``Certificate:`` starts at, and the search that finds one by name, so
that a model goes to a certificate with one read instead of searching 10,000 lines of moduli blind (the system
bundle's 144, 534 KB, was ``text, 9,875 lines``; helper shapes4 of what modeltask3 met). Such text stays content type
``text``; its shape starts with :data:`CERTS_SHAPE`.

The layout (OpenSSL's ``X509_print_ex``): ``Certificate:`` at a line's start, ``    Data:`` under it (both
always written together), then among the
indented fields ``        Subject: CN = ACCVRAIZ1, OU = PKIACCV, O = ACCV, C = ES`` (``x509``'s names) or
``Subject: CN=ACCVRAIZ1, ...`` (``pkcs7``'s); ``pkcs7 -print_certs`` without ``-noout`` adds ``subject=`` and
``issuer=`` lines and the PEM after each. Told only on text that starts with ``Certificate:`` (a test of its first
bytes, before any regular expression; every other text costs that) and whose first certificate has a subject; the
certificates counted are those of the sample (its scope says so when it is not the whole content), the first of them
named as the shape's room allows, ``… N more`` the rest."""

from __future__ import annotations

import re
from bisect import bisect_right
from datetime import datetime

from scratchfs.api.shape_parts import Parts, numbered
from scratchfs.api.shape_words import called_name, listed_within, plural

__all__ = ["CERTS_SHAPE", "certs_shape"]

CERTS_SHAPE = "certificates (openssl -text)"
"""How the shape of certificates dumped as text starts."""

_START = b"Certificate:"
_CERT_RE = re.compile(rb"\nCertificate:\r?\n[ \t]{1,16}Data:\r?\n(?:(?!Certificate:)[^\n]{0,400}\n){0,40}?"
                      rb"[ \t]{1,16}Subject:[ \t]?([^\r\n]{0,1000})")
# (a certificate's first two lines, then its subject within its next 40 lines, ten or so in OpenSSL's layout, and
# before the next certificate's: one that had none took the next one's subject at its own line, and each of 40,000
# Certificate: lines looked 40 lines on, 76 ms; prose that opens "Certificate:" has no Data: line)
_NAME_RE = re.compile(r'(?:^|,\s*)(CN|O|OU)\s?=\s?(?:"((?:[^"\\]|\\.)*)"(?=,|\s*$)|((?:[^,\\]|\\.)+))')
# (x509's oneline form quotes a value holding , + ; < > #: CN = "Acme, Inc.", read without its quotes)
_FIND = ('; pattern="^\\s*Subject:.*= ?\\x22?NAME\\x22?(,|\\s*$)", context="line" finds its Subject line '
         '(NAME with \\ before each of .^$*+?()[]{}|\\ and space), line=N reads a certificate from its start')
# (a pattern anchored to the Subject line and the name's end: match="NAME" first found the Issuer line of the
# certificate before it, a chain's leaf naming its intermediate, or a DNS: name, or "AC RAIZ FNMT-RCM SERVIDORES
# SEGUROS" for "AC RAIZ FNMT-RCM"; helper shapenames1. The name escaped: pattern="Subject:.*NAME" found nothing of
# "Entrust.net Certification Authority (2048)"; leftovers1 helper)


_NOT_AFTER_RE = re.compile(rb"\n[ \t]{1,24}Not After ?: ?([A-Z][a-z]{2} [ \d]?\d \d\d:\d\d:\d\d \d{4}) GMT")
"""A certificate's ``Not After : Dec 31 09:37:37 2030 GMT`` line (``x509``'s validity; ``pkcs7``'s too)."""


def certs_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is certificates dumped as text by OpenSSL,
    else ``None``: ``"certificates (openssl -text), 836 lines, 12 certificates: ACCVRAIZ1 (line 1), AC RAIZ FNMT-RCM
    (line 104), …; pattern="^\\s*Subject:.*= ?\\x22?NAME\\x22?(,|\\s*$)", context="line" finds its Subject
    line (NAME with \\ before each of .^$*+?()[]{}|\\ and space), line=N reads a certificate from its start"``.
    ``size`` (the content's bytes) is unused: the other kinds take it. Never raises."""
    if not sample.startswith(_START):  # (one comparison of the first bytes: every other text stops here)
        return None
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    text = b"\n" + sample  # (each certificate's line: the newlines before it)
    certs = Parts(_CERT_RE, text)
    if not certs or not _CERT_RE.match(text):  # (the first certificate's subject, where the text starts)
        return None
    head = f"{CERTS_SHAPE}, {plural(lines, 'line')}, {plural(len(certs), 'certificate')}{scope}"
    head += f"{_first_expiring(text, certs)}: "
    items = (_item(raw, line) for line, raw in numbered(text, certs))
    return listed_within(head, items, _FIND, len(certs))


def _first_expiring(text: bytes, certs: Parts) -> str:
    """What the shape says of the certificate of ``text`` (a newline, then the sample) that expires first, by its
    ``Not After`` line: ``"; expires first: NAME (line 9,112, Not After Mar 17 2025)"`` (its name and line as the list
    names them; a name cut to 48 characters, ``…``, or none, which no search finds: ``"; expires first: the
    certificate at line 1 (Not After Jan 6 2027, line=1 reads it)"``), or ``""`` when no certificate has one, or
    there is one. So "which certificate expires first?" is read in the stub, where it took a search of every
    ``Not After`` line (141 certificates: 8 calls, 12 KB) and a match of each line to the certificate before it."""
    starts, subjects = [], []
    if len(certs) < 2:  # (one certificate: its date is no answer to "which first")
        return ""
    for offset, raw in certs:
        starts.append(offset)
        subjects.append(raw)
    first: tuple[datetime, int] | None = None
    for found in _NOT_AFTER_RE.finditer(text):
        try:
            when = datetime.strptime(" ".join(found[1].decode().split()), "%b %d %H:%M:%S %Y")
        except ValueError:  # (a date no calendar has)
            continue
        cert = bisect_right(starts, found.start()) - 1
        if cert >= 0 and (first is None or when < first[0]):
            first = (when, cert)
    if first is None:
        return ""
    when, cert = first
    line = text.count(b"\n", 0, starts[cert] + 1)
    name, found = _subject_name(subjects[cert])
    date = f"Not After {when:%b} {when.day} {when.year}"
    if not found:  # (a cut name no search finds, up to 48 characters the list says again: its line and its read)
        return f"; expires first: the certificate at line {line:,} ({date}, line={line} reads it)"
    return f"; expires first: {name} (line {line:,}, {date})"


def _item(raw: bytes, line: int) -> str:
    """A certificate at ``line`` as the shape lists it, from its ``Subject:`` line's text ``raw``: its name (``CN``,
    else ``OU``, else ``O``: :func:`_subject_name`) and line, which the shape's pattern finds -- or, for a name cut to
    48 characters (``…``) or a subject with none of those (shown whole, or ``(no subject)``), which no pattern of
    it finds, the ``line=`` that reads it: ``"C = US, ST = Oregon" (line 36, line=36 reads it)``."""
    name, found = _subject_name(raw)
    return f"{name} (line {line:,})" if found else f"{name} (line {line:,}, line={line} reads it)"


def _subject_name(raw: bytes) -> tuple[str, bool]:
    """A certificate's name in a shape, from its ``Subject:`` line's text ``raw``: its common name (``CN``), else its
    unit (``OU``: ``AC RAIZ FNMT-RCM``, where its ``O`` is ``FNMT-RCM``), else its organisation (``O``), else the whole
    subject (``(no subject)`` when empty), in JSON quotes when it holds a comma, a colon, a quote or a character that
    does not show as itself (:func:`~scratchfs.api.shape_words.called_name`: the call the shape names holds the
    name's real characters), cut to 48 characters; and whether the shape's pattern finds it by that name (one of
    those three, whole)."""
    subject = raw.decode("utf-8", "replace").strip()
    names = {key: quoted or bare for key, quoted, bare in reversed(_NAME_RE.findall(subject))}  # (the first of
    # each: reversed, so the first is kept)
    named = next((names[key].strip() for key in ("CN", "OU", "O") if key in names), "")
    name = named or subject or "(no subject)"
    return called_name(name, 48), bool(named) and len(name) <= 48
