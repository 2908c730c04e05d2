"""Space ids by mode (memory model, MM-SPACE-2), the same as the TypeScript client's."""

from __future__ import annotations

import hashlib
import os
import re

_SPACE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


def _checked(space_id: str) -> str:
    if not _SPACE_ID.match(space_id):
        raise ValueError(f"{space_id!r} is not a valid space id: 1–128 letters, digits, '.', '_', ':' or '-'")
    return space_id


def project_space_id(root_path: str) -> str:
    """``project:`` and the first 20 hex digits of SHA-256 of the resolved root path.

    The path is made absolute, ``\\`` written ``/`` and lower-cased, so the same folder gives
    the same id whatever the working directory, separator or letter case.
    """
    normalised = os.path.abspath(root_path).replace("\\", "/").lower()
    return "project:" + hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:20]


def session_space_id(session_id: str) -> str:
    """``session:<id>``: memory that lives for one session."""
    return _checked(f"session:{session_id}")


def global_space_id(name: str) -> str:
    """``global:<name>``: memory shared by every project of the tenant that names it."""
    return _checked(f"global:{name}")
