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

# The classes are made by the bindings; their documentation lives here, with
# the rest of the package's (the bindings' docstrings are one line each).
DecodeError.__doc__ = """Malformed or unsupported profile input (a ``ValueError``).

Attributes
----------
reason : str
    The bare message.
field : str or None
    The protobuf field path, e.g. ``"Profile.sample.value"``.
offset : int or None
    The byte offset in the decompressed protobuf (``None`` when the problem is
    not tied to one place).
path : str or None
    The file, when the input was one.

Examples
--------
>>> try:
...     pprofcore.loads(b"\\x08")
... except pprofcore.DecodeError as e:
...     print(e.field, e.offset, e.path)
Profile.sample_type 0 None
"""

GzipError.__doc__ = """Corrupt, truncated or oversized gzip or zstd input, and a file
compressed twice: a :class:`DecodeError`.

Examples
--------
>>> pprofcore.loads(b"\\x1f\\x8b\\x08\\x00garbage")
Traceback (most recent call last):
    ...
pprofcore._core.GzipError: truncated gzip stream (field gzip) at byte offset 11
"""

ProfileError.__doc__ = """A valid profile that the operation cannot handle (a ``ValueError``):
nothing to merge, sample types that do not match, an unknown sample type.

Examples
--------
>>> cpu = pprofcore.load(pprofcore.example_path("cpu"))
>>> heap = pprofcore.load(pprofcore.example_path("heap"))
>>> pprofcore.merge([cpu, heap])
Traceback (most recent call last):
    ...
pprofcore._core.ProfileError: cannot merge profile 1: incompatible period types cpu/nanoseconds and space/bytes
"""


def unknown_sample_type(name: str, have: Iterable[str], where: str = "") -> ProfileError:
    """The error for a sample type ``name`` a profile does not have, the same
    from every entry point (Profile methods, reports, views, testing, the
    pytest plugin; the C++ fleet reader's UnknownSampleType reads the same):
    ``ProfileError("[where: ]no sample_type 'name'; have a, b")``."""
    prefix = f"{where}: " if where else ""
    return ProfileError(f"{prefix}no sample_type {name!r}; have {', '.join(have)}")


class FilterWarning(UserWarning):
    """An expression given to a filter matched nothing (pprof prints
    "... expression matched no samples" in the same situation).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     len(p.filter(focus="no_such_function"))
    0
    >>> caught[0].category.__name__, str(caught[0].message)
    ('FilterWarning', "Focus expression 'no_such_function' matched no samples")
    """
