"""Writing OpenTelemetry profiles: :func:`to_otlp`, a profile as OTLP
``ProfilesData`` protobuf (opentelemetry-proto v1.11.0, profiles
v1development; see docs/otlp.md for the mapping). The encoding is the C++
core's; this module checks the arguments. Not here: reading (``_from_otlp``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

from . import _args, _core

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile


def to_otlp(
    p: "Profile",
    resource: Optional[Mapping[str, Any]] = None,
    scope_name: str = "pprofcore",
    scope_version: str = "",
    compress: bool = False,
    level=None,
) -> bytes:
    if resource is not None and not isinstance(resource, Mapping):
        raise TypeError(f"resource must be a mapping of attribute names to values, not {type(resource).__name__}")
    attrs = dict(resource or {})
    for key in attrs:
        if not isinstance(key, str):
            raise TypeError(f"resource attribute names are str, not {type(key).__name__}")
    return _core.encode_otlp(
        p._core, attrs, str(scope_name), str(scope_version), bool(compress), _args.check_level(level)
    )
