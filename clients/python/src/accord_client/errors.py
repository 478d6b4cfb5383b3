"""What the client raises. Every error is an `AccordClientError`."""

from __future__ import annotations


class AccordClientError(Exception):
    """Base of every error the client raises."""


class InvalidInputError(AccordClientError, ValueError):
    """The caller's input breaks the wire contract; nothing was written.

    `field` is a JSON path into the event (`$.text`, `$.timezone`, `$.session_id`) or the
    argument's name, `message` says what is wrong.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class AppendUnavailableError(AccordClientError):
    """Redis did not confirm the append after every retry.

    The entry may or may not be written. Retrying with the same `idempotency_key`
    (the message id or call id) is always safe: a written entry is answered with its
    seq, never appended twice.
    """

    def __init__(self, idempotency_key: str, cause: BaseException) -> None:
        super().__init__(f"append {idempotency_key!r} not confirmed: {cause!r}")
        self.idempotency_key = idempotency_key


class NotReplicatedError(ConnectionError):
    """Fewer replicas than `wait_replicas` acknowledged an append within the wait: the
    primary has it, a failover could lose it. Retried like a lost connection (the
    idempotency key keeps the retry from appending twice); past the retries it becomes
    an `AppendUnavailableError`."""

    def __init__(self, acknowledged: int, wanted: int) -> None:
        super().__init__(f"{acknowledged} of {wanted} replicas acknowledged the append")
        self.acknowledged = acknowledged
        self.wanted = wanted


class AcceptTimeoutError(AccordClientError, TimeoutError):
    """No tool outcome for the accept call in time (is a worker running?).

    The call is written (it has `seq`): its outcome will still be published, and a
    retried `accept` with the same `call_id` waits for it without writing again.
    """

    def __init__(self, call_id: str, seq: int, timeout: float) -> None:
        super().__init__(f"no outcome for call {call_id!r} (seq {seq}) within {timeout:g}s")
        self.call_id = call_id
        self.seq = seq


class AppliedTimeoutError(AccordClientError, TimeoutError):
    """The session's applied seq did not reach `seq` in time."""

    def __init__(self, seq: int, applied: int, timeout: float) -> None:
        super().__init__(f"seq {seq} not applied within {timeout:g}s (applied: {applied})")
        self.seq = seq
        self.applied = applied


class UnknownRecordError(AccordClientError, LookupError):
    """No record with this id in the scope (a record of another scope is unknown too)."""

    def __init__(self, record_id: str) -> None:
        super().__init__(f"unknown record {record_id!r}")
        self.record_id = record_id
