"""Reading OpenTelemetry profiles: :func:`load_otlp` and :class:`OtlpProfile`.

An OTLP message (``ProfilesData`` or ``ExportProfilesServiceRequest``,
protobuf raw/gzip/zstd or OTLP JSON; opentelemetry-proto v1.10.0 and v1.11.0,
and the older protobuf layouts of v1.7.0-v1.9.0)
holds profiles per resource, scope and sample type; the C++ core decodes them
all into pprof profiles (docs/otlp.md has the mapping). ``load``/``loads``
read a message holding one profile; this module returns every profile with
where it came from. Not here: writing (``_to_otlp``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import IO, Any, Dict, List, Tuple, Union

from . import _core
from ._io import DEFAULT_MAX_DECOMPRESSED_SIZE, path_bytes
from ._profile import Profile


@dataclass(frozen=True)
class OtlpProfile:
    """One profile of an OTLP message with its context.

    ``profile`` is the pprof profile (sample attributes, links and timestamps
    are its labels). ``resource``, ``scope_attributes`` and ``attributes`` map
    attribute names to values (str, bool, int, float, bytes, list, dict);
    ``attributes`` are the profile's own, less those pprof has a field for
    (``pprof.profile.comment`` and the like). ``profile_indices`` lists the
    OTLP profiles of the scope it joins (one per sample type).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> [item] = pprofcore.load_otlp(p.to_otlp(resource={"service.name": "api"}))
    >>> item.resource["service.name"], len(item.profile) == len(p)
    ('api', True)
    """

    profile: Profile
    resource: Dict[str, Any] = field(default_factory=dict)
    scope_name: str = ""
    scope_version: str = ""
    scope_attributes: Dict[str, Any] = field(default_factory=dict)
    attributes: Dict[str, Any] = field(default_factory=dict)
    profile_id: bytes = b""
    resource_schema_url: str = ""
    scope_schema_url: str = ""
    original_payload_format: str = ""
    original_payload: bytes = b""
    dropped_attributes_count: int = 0
    resource_index: int = 0
    scope_index: int = 0
    profile_indices: Tuple[int, ...] = ()


# OtlpProfile's fields past the profile, filled from the core's dict under the
# same names but for those CORE_KEYS renames.
CONTEXT_FIELDS = [f.name for f in fields(OtlpProfile) if f.name != "profile"]
CORE_KEYS = {"resource": "resource_attributes", "attributes": "profile_attributes"}


def _wrap(results, resource_labels: bool) -> List[OtlpProfile]:
    out = []
    for core, o in results:
        profile = Profile._wrap(core)
        if resource_labels:
            # Every sample carries its resource (a merge of many profiles keeps them apart).
            for key, value in o["resource_attributes"].items():
                text = (
                    value.hex()
                    if isinstance(value, bytes)
                    else str(value).lower()
                    if isinstance(value, bool)
                    else str(value)
                )
                profile = profile.set_label(key, text)
        context = {name: o[CORE_KEYS.get(name, name)] for name in CONTEXT_FIELDS}
        context["profile_indices"] = tuple(context["profile_indices"])
        out.append(OtlpProfile(profile=profile, **context))
    return out


def load_otlp(
    source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]],
    *,
    resource_labels: bool = False,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> List[OtlpProfile]:
    """Every profile of an OpenTelemetry OTLP profiles message, in message order.

    ``source`` is a path, the message's bytes or a binary file object. The
    message is ``ProfilesData`` or ``ExportProfilesServiceRequest`` as
    protobuf (raw, gzip or zstd) or OTLP JSON, of opentelemetry-proto v1.10.0
    or v1.11.0; protobuf of the older layouts of v1.7.0, v1.8.0 and v1.9.0
    (async-profiler 4.1-4.4 wrote them) is read too, the layout told by the
    fields it holds (docs/otlp.md, "Older layouts"). OTLP profiles
    of one scope whose samples match one to one (one per sample type, as
    :meth:`Profile.to_otlp` writes them) come back as one profile with several
    sample types. ``resource_labels=True`` also puts each resource attribute
    on every sample as a string label (``process.pid=66``), so that profiles
    merged afterwards stay apart by resource. Raises :class:`DecodeError`
    (field and byte offset) for malformed input.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> message = p.to_otlp(scope_name="my-profiler")
    >>> [item.scope_name for item in pprofcore.load_otlp(message)]
    ['my-profiler']
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _wrap(_core.decode_otlp(source, max_decompressed_size), resource_labels)
    if hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("load_otlp() needs a file opened in binary mode")
        return _wrap(_core.decode_otlp(data, max_decompressed_size), resource_labels)
    return _wrap(_core.decode_otlp_file(path_bytes(source), max_decompressed_size), resource_labels)
