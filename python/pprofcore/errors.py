"""Exceptions raised by pprofcore.

All are ``ValueError`` subclasses, so code that already catches ``ValueError``
for bad input keeps working.

- :class:`DecodeError` -- malformed or unsupported input. ``reason`` is the bare
  message, ``field`` the protobuf field path (e.g. ``"Profile.sample.value"``) and
  ``offset`` the byte offset in the decompressed protobuf (``None`` when the
  problem is not tied to one place). ``path`` is set when the input was a file,
  as ``os.fsdecode`` names it. Messages quote the input; its bytes that are not
  UTF-8 appear as ``\\xNN``, so a damaged file raises a ``DecodeError``, never
  a ``UnicodeDecodeError``.
- :class:`GzipError` -- a :class:`DecodeError` for corrupt, truncated or
  oversized gzip or zstd input (see ``max_decompressed_size``), and for a file
  compressed twice.
- :class:`ProfileError` -- a valid profile that an operation cannot handle.
- :class:`FilterWarning` -- a filter expression matched nothing (a warning, not
  an error).
"""

from typing import Iterable

from ._core import DecodeError, GzipError, ProfileError

__all__ = ["DecodeError", "FilterWarning", "GzipError", "ProfileError"]


def unknown_sample_type(name: str, have: Iterable[str], where: str = "") -> ProfileError:
    """The error for a sample type ``name`` a profile does not have, the same
    from every entry point (Profile methods, reports, views, testing, the
    pytest plugin; the C++ fleet reader's UnknownSampleType reads the same):
    ``ProfileError("[where: ]no sample_type 'name'; have a, b")``."""
    prefix = f"{where}: " if where else ""
    return ProfileError(f"{prefix}no sample_type {name!r}; have {', '.join(have)}")


class FilterWarning(UserWarning):
    """An expression given to a filter matched nothing (pprof prints
    "... expression matched no samples" in the same situation)."""
