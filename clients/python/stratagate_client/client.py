"""The StrataGate client: every operation by its operationId, on the standard library only."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, List, Optional, TypeVar

from ._generated import OPERATIONS
from .errors import (
    ConnectionFailedError,
    NotFoundError,
    ServerError,
    SettleTimeoutError,
    StrataGateError,
    error_from_answer,
)

JSON_TYPE = "application/json"
A = TypeVar("A")


@dataclass
class Judgement(Generic[A]):
    """What the caller's judge decides after reading a batch (see ``answer_with_evidence``)."""

    verdict: str
    """``sufficient`` only when ``evidence_refs`` answer the question; else partial or wrong."""
    evidence_refs: List[str]
    fit: str
    missing: str = ""
    next_strategy: str = "search_events"
    """For partial or wrong: what the agent would do next. Ignored when sufficient."""
    answer: Optional[A] = None
    used_refs: Optional[List[str]] = None
    """The refs the answer used (default: the accepted refs of a sufficient assessment)."""


@dataclass
class Answered(Generic[A]):
    answer: Optional[A]
    found: Dict[str, Any]
    assessment: Dict[str, Any]
    adoption: Dict[str, Any]


@dataclass
class StrataGate:
    """A client of the StrataGate API.

    ``call(operation_id, body=None, **params)`` reaches every operation of the API: path and
    query parameters by name, the JSON body as ``body``. A write whose body has an idempotency
    field (``turnId``, ``requestId``, ``receiptId``) gets a fresh id when it is left out, and
    keeps it when the call is sent again. A call that was not carried out (503, 408,
    ``version_conflict``, or no answer for a read or a write with such an id) is sent again up
    to ``retries`` times. Every answer that is not a success raises a ``StrataGateError``.
    """

    base_url: str
    api_key: str
    retries: int = 2
    retry_delay: float = 0.25
    timeout: float = 60.0
    new_id: Callable[[], str] = field(default=lambda: str(uuid.uuid4()))

    operations = OPERATIONS

    def call(self, operation_id: str, body: Any = None, **params: Any) -> Any:
        op = OPERATIONS.get(operation_id)
        if op is None:
            raise TypeError(f"StrataGate: no operation {operation_id!r}")
        path = op["path"]
        query: Dict[str, Any] = {}
        for name, value in params.items():
            if name in op["path_params"]:
                path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
            elif name in op["query_params"]:
                if value is not None:
                    query[name] = value
            else:
                raise TypeError(f"StrataGate: {operation_id} takes no parameter {name!r}")
        missing = [name for name in op["path_params"] if "{" + name + "}" in path]
        if missing:
            raise TypeError(f"StrataGate: {operation_id} needs {', '.join(missing)}")
        url = self.base_url.rstrip("/") + path
        if query:
            url += "?" + urllib.parse.urlencode(query, doseq=True)

        key_field = op["idempotency_field"]
        if key_field and isinstance(body, dict) and body.get(key_field) is None:
            body = {**body, key_field: self.new_id()}
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "application/json"}
        data: Optional[bytes] = None
        if body is not None:
            request_type = op["request_type"] or JSON_TYPE
            headers["content-type"] = request_type
            data = (json.dumps(body) if request_type == JSON_TYPE else str(body)).encode("utf-8")
        # Without an answer the request may have been carried out: only send again what is safe.
        resendable = op["method"] in ("GET", "PUT") or key_field is not None

        attempt = 0
        while True:
            try:
                return self._send(operation_id, op, url, data, headers)
            except StrataGateError as error:
                again = error.retryable and (error.kind != "connection" or resendable)
                if not again or attempt >= self.retries:
                    raise
            time.sleep(self.retry_delay * 2**attempt)
            attempt += 1

    def _send(self, operation_id: str, op: Dict[str, Any], url: str, data: Optional[bytes], headers: Dict[str, str]) -> Any:
        request = urllib.request.Request(url, data=data, headers=headers, method=op["method"])
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as answer:
            text = answer.read().decode("utf-8", "replace")
            try:
                parsed: Any = json.loads(text)
            except ValueError:
                parsed = text
            raise error_from_answer(answer.code, parsed, operation_id) from None
        except (urllib.error.URLError, socket.timeout, ConnectionError) as cause:
            reason = getattr(cause, "reason", cause)
            raise ConnectionFailedError(
                0, "connection_failed", f"no answer from the API: {reason}", operation_id=operation_id
            ) from cause
        text = raw.decode("utf-8")
        if op["response_type"] not in (None, JSON_TYPE):
            return text
        try:
            return json.loads(text) if text else None
        except ValueError as cause:
            raise ServerError(
                0, "unexpected_response", "the answer could not be read as JSON", operation_id=operation_id
            ) from cause

    def wait_until_settled(self, space_id: str, timeout: float = 60.0, interval: float = 0.2) -> Dict[str, Any]:
        """Waits until the space is settled (projection caught up, every job final).

        A space whose first records are not visible yet is waited for too; it is reported
        not found only at the end.
        """
        deadline = time.monotonic() + timeout
        while True:
            last: Any
            try:
                last = self.call("getSpaceStatus", spaceId=space_id)
                if last["settled"]:
                    return last
            except NotFoundError as error:
                if error.code != "space_not_found":
                    raise
                last = error
            if time.monotonic() + interval > deadline:
                if isinstance(last, NotFoundError):
                    raise last
                raise SettleTimeoutError(
                    0,
                    "settle_timeout",
                    f"space {space_id!r} did not settle within {timeout} s",
                    details=last,
                    operation_id="getSpaceStatus",
                )
            time.sleep(interval)

    def answer_with_evidence(
        self,
        space_id: str,
        thread_id: str,
        body: Dict[str, Any],
        judge: Callable[[Dict[str, Any]], Judgement[A]],
        search: str = "searchEvents",
        receipt_id: Optional[str] = None,
    ) -> Answered[A]:
        """The evidence gate's common case in one call: search → judge → assess → adopt.

        Adopts the refs the answer used when the assessment is sufficient, and closes the batch
        with none otherwise, so no unresolved batch is left behind the answer.
        """
        at = {"spaceId": space_id, "threadId": thread_id}
        found = self.call(search, body, **at)
        judgement = judge(found)
        sufficient = judgement.verdict == "sufficient"
        assessment = self.call(
            "assessEvidence",
            {
                "batchId": found["batchId"],
                "verdict": judgement.verdict,
                "evidence_refs": judgement.evidence_refs,
                "fit": judgement.fit,
                "missing": "" if sufficient else judgement.missing,
                "next_strategy": "answer" if sufficient else judgement.next_strategy,
            },
            **at,
        )
        used = (
            (judgement.used_refs if judgement.used_refs is not None else assessment["evidenceRefs"])
            if assessment["verdict"] == "sufficient"
            else []
        )
        adopt: Dict[str, Any] = {"batchId": found["batchId"], "evidence_refs": used}
        if receipt_id is not None:
            adopt["receiptId"] = receipt_id
        adoption = self.call("adoptEvidence", adopt, **at)
        return Answered(judgement.answer, found, assessment, adoption)
