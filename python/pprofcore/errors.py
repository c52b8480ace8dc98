"""Exceptions raised by pprofcore.

All are ``ValueError`` subclasses, so code that already catches ``ValueError``
for bad input keeps working.

- :class:`DecodeError` -- malformed or unsupported input. ``reason`` is the bare
  message, ``field`` the protobuf field path (e.g. ``"Profile.sample.value"``) and
  ``offset`` the byte offset in the decompressed protobuf (``None`` when the
  problem is not tied to one place). ``path`` is set when the input was a file.
- :class:`GzipError` -- a :class:`DecodeError` for corrupt, truncated or
  oversized gzip input (see ``max_decompressed_size``).
- :class:`ProfileError` -- a valid profile that an operation cannot handle.
- :class:`FilterWarning` -- a filter expression matched nothing (a warning, not
  an error).
"""

from ._core import DecodeError, GzipError, ProfileError

__all__ = ["DecodeError", "FilterWarning", "GzipError", "ProfileError"]


class FilterWarning(UserWarning):
    """An expression given to a filter matched nothing (pprof prints
    "... expression matched no samples" in the same situation)."""
