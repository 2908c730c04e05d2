"""StrataGate memory API client, on the Python standard library only."""

from ._generated import ERROR_CODES, OPERATIONS
from .client import Answered, Judgement, StrataGate
from .errors import (
    ConflictError,
    ConnectionFailedError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    RejectedError,
    ServerError,
    SettleTimeoutError,
    StrataGateError,
    UnauthorizedError,
    UnavailableError,
    error_from_answer,
    is_known_error_code,
)
from .space_ids import global_space_id, project_space_id, session_space_id

__all__ = [
    "Answered",
    "ConflictError",
    "ConnectionFailedError",
    "ERROR_CODES",
    "ForbiddenError",
    "InvalidRequestError",
    "Judgement",
    "NotFoundError",
    "OPERATIONS",
    "RejectedError",
    "ServerError",
    "SettleTimeoutError",
    "StrataGate",
    "StrataGateError",
    "UnauthorizedError",
    "UnavailableError",
    "error_from_answer",
    "global_space_id",
    "is_known_error_code",
    "project_space_id",
    "session_space_id",
]
