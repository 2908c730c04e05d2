"""Typed errors: one StrataGateError with the API's stable code, a subclass per family."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Type

from ._generated import ERROR_CODES


class StrataGateError(Exception):
    """An API call that did not succeed.

    ``code`` is the API's stable code (docs/api-errors.md; ``ERROR_CODES``) or one of the
    client's own (``connection_failed``, ``unexpected_response``, ``settle_timeout``);
    ``status`` is the HTTP status, 0 when there was no answer; ``issues`` names each failed field.
    """

    kind = "server"

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        issues: Optional[List[Dict[str, Any]]] = None,
        details: Any = None,
        operation_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.issues = issues or []
        self.details = details
        self.operation_id = operation_id

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again may succeed: nothing was done the first time."""
        return self.kind in ("unavailable", "connection") or self.code in (
            "version_conflict",
            "request_timeout",
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r})"


class InvalidRequestError(StrataGateError):
    """400, 405, 413, 414, 415, 431: the request itself is wrong; see ``issues``."""

    kind = "invalid_request"


class UnauthorizedError(StrataGateError):
    """401: no key, or an unknown or revoked one."""

    kind = "unauthorized"


class ForbiddenError(StrataGateError):
    """403: the server does not allow this operation."""

    kind = "forbidden"


class NotFoundError(StrataGateError):
    """404: no such space, thread, block, event, node or batch in the key's tenant."""

    kind = "not_found"


class ConflictError(StrataGateError):
    """409: an id reused for something else, a batch already recorded, a block not ready."""

    kind = "conflict"


class RejectedError(StrataGateError):
    """422: well-formed but refused, e.g. an adoption citing refs its batch does not hold."""

    kind = "rejected"


class UnavailableError(StrataGateError):
    """408, 503: not done; send it again shortly."""

    kind = "unavailable"


class ServerError(StrataGateError):
    """500 or any other status: an unexpected failure of the server."""

    kind = "server"


class ConnectionFailedError(StrataGateError):
    """No HTTP answer at all (``connection_failed``)."""

    kind = "connection"


class SettleTimeoutError(StrataGateError):
    """``wait_until_settled`` ran out of time (``settle_timeout``); ``details`` is the last status."""

    kind = "timeout"


_FAMILIES: Dict[int, Type[StrataGateError]] = {
    400: InvalidRequestError,
    405: InvalidRequestError,
    413: InvalidRequestError,
    414: InvalidRequestError,
    415: InvalidRequestError,
    431: InvalidRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    422: RejectedError,
    408: UnavailableError,
    503: UnavailableError,
}


def is_known_error_code(code: str) -> bool:
    """Whether a code is one of the API's (a newer server may answer one this client lacks)."""
    return code in ERROR_CODES


def error_from_answer(status: int, body: Any, operation_id: Optional[str] = None) -> StrataGateError:
    """The typed error for an answer with a non-2xx status and its parsed body."""
    family = _FAMILIES.get(status, ServerError)
    envelope = body.get("error") if isinstance(body, dict) else None
    if (
        not isinstance(envelope, dict)
        or not isinstance(envelope.get("code"), str)
        or not isinstance(envelope.get("message"), str)
    ):
        return family(
            status,
            "unexpected_response",
            f"the server answered {status} without an API error body",
            details=body,
            operation_id=operation_id,
        )
    issues = envelope.get("issues")
    return family(
        status,
        envelope["code"],
        envelope["message"],
        issues if isinstance(issues, list) else [],
        envelope.get("details"),
        operation_id,
    )
