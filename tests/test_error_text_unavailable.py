"""A tool error for a backend out of reach (newuser26: moto stopped under a fleet store) told the model only the
operator's remedy, "check that the store is up and $AWS_ENDPOINT_URL names it", which no call of the model can do;
the model could not tell it from a mistake of its own. An error flagged ``unavailable`` now says the call is worth
making again, unchanged, in a few seconds -- on every face that answers with ``error_text`` (MCP, the proxy, the
adapter) -- and keeps that advice when a long message is cut to the reply bound."""

from __future__ import annotations

from scratchfs.api.contract import error_text
from scratchfs.foundation.errors import NotFound, StorageError
from scratchfs.foundation.limits import MIN_REPLY_BYTES

S3_DOWN = ("the object store failed while reading the store's blob marker dev/store-id (EndpointConnectionError: "
           "cannot connect to the endpoint http://127.0.0.1:50026; check that the store is up and $AWS_ENDPOINT_URL "
           "names it)")
ADVICE = "; the store is out of reach for now (no argument changes that): retry the call in a few seconds"


def _away(message: str) -> StorageError:
    error = StorageError(message)
    error.unavailable = True  # type: ignore[attr-defined]  # (as s3_client and postgres_schema flag it)
    return error


def test_an_unavailable_backend_tells_the_model_to_retry():
    assert error_text(_away(S3_DOWN)) == f"storage: {S3_DOWN}{ADVICE}"


def test_other_errors_are_as_they_were():
    assert error_text(StorageError(S3_DOWN)) == f"storage: {S3_DOWN}"  # (a disk full: no retry fixes it)
    assert error_text(NotFound("no handle 'h_x' in this scope")) == "not found: no handle 'h_x' in this scope"


def test_a_message_naming_its_retry_is_not_told_twice():
    said = "the store is not open: ...; retry in 2 s or more"  # (deferred_store's, which names when)
    error = _away(said)
    error.retry_after = 2.0  # type: ignore[attr-defined]  # (as deferred_store sets it)
    assert error_text(error) == f"storage: {said}"


def test_a_long_message_is_cut_before_the_advice():
    text = error_text(_away("é" * 3000))
    assert text.endswith("..." + ADVICE) and text.startswith("storage: éé")
    assert len(text.encode("utf-8")) <= MIN_REPLY_BYTES


def test_a_message_naming_retry_in_its_names_keeps_the_advice():
    """The advice was left out of any message holding the word "retry" (hostile41): an S3 failure naming an object
    of run ``retry-7`` or key ``retry_count`` said only the operator's remedy. It is told by ``retry_after`` (the
    error that names its own retry sets it), not by the words; a lookup of either that raises leaves the text as is."""
    named = S3_DOWN.replace("dev/store-id", "dev/runs/retry-7/agent/retry_count")
    assert error_text(_away(named)) == f"storage: {named}{ADVICE}"
    timed = _away("the store is not open: ...; retry in 2 s or more")
    timed.retry_after = 2.0  # type: ignore[attr-defined]
    assert error_text(timed) == "storage: the store is not open: ...; retry in 2 s or more"
    cut = _away("x" * 3000 + "; retry in 2 s or more")  # (its own retry cut off: the advice instead)
    cut.retry_after = 2.0  # type: ignore[attr-defined]
    assert error_text(cut).endswith("..." + ADVICE)

    class Odd(StorageError):
        def __getattr__(self, name):
            raise KeyError(name)

    assert error_text(Odd("down")) == "storage: down"
