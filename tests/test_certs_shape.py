"""Certificates dumped as text by OpenSSL: each one's subject at the line its ``Certificate:`` starts at, and the
search that finds one by name (helper shapes4, of what modeltask3 met: the system bundle's 144 certificates, 534 KB
of ``openssl pkcs7 -print_certs -text -noout``, were told ``text, 9,875 lines``, so finding one took a blind search;
``fixtures/tools/openssl-x509-text-12.txt``, ``openssl-pkcs7-print-certs-6.txt``), against the plain answer (the
lines OpenSSL writes for them); within the sample bound, the certificates counted are the sample's, its scope says
so; other text is told as before."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_certs import CERTS_SHAPE

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
X509 = (_TOOLS / "openssl-x509-text-12.txt").read_bytes()
PKCS7 = (_TOOLS / "openssl-pkcs7-print-certs-6.txt").read_bytes()
_ITEM_RE = re.compile(r"(?:: |, )([^,:(][^,:]*?) \(line ([\d,]+)\)")
_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
_EXPIRY_RE = re.compile(r"; expires first: .*?\(line [\d,]+, Not After [A-Z][a-z]{2} \d{1,2} \d{4}\): ")


def shape_of(data: bytes) -> str:
    """The shape, the clause naming the certificate that expires first taken off (tests/test_modeltask13_shapes.py
    tests it): these tests read the list of certificates after it."""
    shape = describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text
    return _EXPIRY_RE.sub(": ", shape, count=1)


def expected(data: bytes) -> list[tuple[str, int]]:
    """Each certificate's name (its subject's CN, else OU, else O) and its first line, read plainly."""
    lines = data.decode().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line == "Certificate:"]
    told = []
    for start in starts:
        subject = next(line for line in lines[start:] if line.strip().startswith("Subject:"))
        fields = dict(reversed(re.findall(r"(?:^|, )(CN|OU|O) ?= ?([^,]+)", subject.split("Subject:", 1)[1].strip())))
        told.append((next(fields[key] for key in ("CN", "OU", "O") if key in fields).strip(), start))
    return told


@pytest.mark.parametrize(("data", "count"), [(X509, 12), (PKCS7, 6)])
def test_certificates_are_named_at_their_lines(data, count):
    shape, lines = shape_of(data), data.count(b"\n")
    assert shape.startswith(f"{CERTS_SHAPE}, {lines:,} lines, {count} certificates: "), shape
    told = [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(shape)]
    assert told == expected(data)[: len(told)] and len(told) >= 6, shape
    assert ("AC RAIZ FNMT-RCM", 104 if data is X509 else 149) in told  # (no CN: its OU, not its O "FNMT-RCM")
    assert shape.endswith('; pattern="^\\s*Subject:.*= ?\\x22?NAME\\x22?(,|\\s*$)", context="line" finds its '
                          "Subject line (NAME with \\ before each of .^$*+?()[]{}|\\ and space), line=N reads a "
                          "certificate from its start"), shape


def test_the_named_search_and_line_read_reach_a_certificate(tmp_path):
    """The model's path: the shape's search finds a subject's line; a line the shape names reads from a start."""
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(X509, source_tool="openssl")
        tools = ScratchTools(scope)
        found = tools.call("read_handle", {"handle": stub.handle, "pattern": "Subject:.*Amazon Root CA 2",
                                           "context": "line"})
        assert [(w["line"], w["data"]) for w in found["windows"]] == [
            (723, "        Subject: C = US, O = Amazon, CN = Amazon Root CA 2")]
        read = tools.call("read_handle", {"handle": stub.handle, "line": 713, "lines": 3})
        assert read["data"].startswith("Certificate:\n    Data:\n        Version: 3 (0x2)"), read


_ENTRUST = "Entrust.net Certification Authority (2048)"


@pytest.mark.parametrize("data", [X509, PKCS7, X509.replace(b"Amazon Root CA 2", _ENTRUST.encode()),
                                  PKCS7.replace(b"AffirmTrust Commercial", _ENTRUST.encode())])
def test_the_named_search_finds_every_certificates_subject_line(tmp_path, data):
    """The call the shape names, NAME each certificate's name as read plainly, finds that certificate's Subject line
    (pattern="Subject:.*NAME" found nothing of a name holding a regex's characters: "Entrust.net Certification
    Authority (2048)", leftovers1 helper), first (match="NAME" first found another's Issuer line: shapenames1)."""
    named = re.search(r'; (match|pattern)="([^"]*NAME[^"]*)", context="line"', shape_of(data))
    assert named is not None, shape_of(data)
    lines = data.decode().splitlines()
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        tools, handle = ScratchTools(scope), scope.spill(data, source_tool="openssl").handle
        for name, start in expected(data):
            subject = next(n for n in range(start, len(lines) + 1) if "Subject:" in lines[n - 1])
            needle = named[2].replace("NAME", re.escape(name) if named[1] == "pattern" else name)
            found = tools.call("read_handle", {"handle": handle, named[1]: needle,
                                               "context": "line", "max_matches": 50})
            assert found["windows"][0]["line"] == subject, (name, found)  # (its own, first: shapenames1)


@pytest.mark.parametrize("data", [
    b"Certificate: none found\nchecked 3 hosts\n" * 40,  # (no subject among its first lines)
    b"  Certificate:\n    Data:\n        Subject: CN = x\n" * 5,  # (not at the start)
    X509.replace(b"Subject:", b"Subjekt:")])
def test_other_text_is_not_told_as_certificates(data):
    assert not shape_of(data).startswith(CERTS_SHAPE)


@pytest.mark.skipif(shutil.which("openssl") is None or not _BUNDLE.exists(), reason="no openssl or bundle here")
def test_the_system_bundle_counts_the_certificates_of_the_sample():
    """The whole bundle (534 KB here, over the 512 KiB sample): the certificates counted are those whose subject the
    sample holds, the scope says it is the sample's, and ``… N more`` how many are not named."""
    pkcs7 = subprocess.run(["openssl", "crl2pkcs7", "-nocrl", "-certfile", str(_BUNDLE)], capture_output=True,
                           check=True).stdout
    out = subprocess.run(["openssl", "pkcs7", "-print_certs", "-text", "-noout"], input=pkcs7, capture_output=True,
                         check=True).stdout
    shape = shape_of(out)
    sample = out[: 512 * 1024]
    counted = len(re.findall(rb"\n +Subject:[^\n]*\n", sample))  # (one a certificate, its line whole in the sample)
    if len(out) > 512 * 1024:
        assert f", {counted:,} certificates (in the first 512 KiB of " in shape, shape
    told = [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(shape)]
    assert told == expected(out)[: len(told)], shape
    assert shape.count(" (line ") == len(told) and f", … {counted - len(told):,} more; " in shape, shape


def test_a_certificate_without_a_subject_lends_none_its_line():
    """A certificate with no Subject: line among its first ones took the next one's subject at its own line (``B
    (line 1)``: line 1 opens a certificate whose subject is not B; hostile35); each is named at the line of its own
    Certificate: now, the one with no subject left uncounted."""
    data = X509[: X509.index(b"\nCertificate:", 1) + 1]  # (the first certificate)
    second = X509[len(data) :]
    first = b"Certificate:\n    Data:\n        Version: 3 (0x2)\n        Issuer: CN = X\n"  # (a few lines: the
    # next subject within 40 of them)
    whole = data + first + second  # (one whole, one with no subject, then the rest)
    lines = whole.count(b"\n")
    shape = shape_of(whole)
    told = [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(shape)]
    assert told and told == expected_each(whole)[: len(told)], shape
    assert shape.startswith(f"{CERTS_SHAPE}, {lines:,} lines, 12 certificates: "), shape


def expected_each(data: bytes) -> list[tuple[str, int]]:
    """Each certificate with a subject among its own lines: its name and first line, read plainly."""
    lines = data.decode().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line == "Certificate:"] + [len(lines) + 1]
    told = []
    for start, end in itertools.pairwise(starts):
        subject = next((line for line in lines[start : end - 1] if line.strip().startswith("Subject:")), None)
        if subject is not None:
            text = subject.split("Subject:", 1)[1].strip()
            fields = dict(reversed(re.findall(r"(?:^|, )(CN|OU|O) ?= ?([^,]+)", text)))
            told.append((next(fields[key] for key in ("CN", "OU", "O") if key in fields).strip(), start))
    return told


def test_prose_that_opens_with_certificate_and_an_indented_subject_is_not_certificates():
    data = b"Certificate:\nThe subject of this note is renewal.\n    Subject: CN=fake, as the form asks\nThanks\n"
    assert not shape_of(data).startswith(CERTS_SHAPE), shape_of(data)
