"""Adding comments to a profile (pprof's ``-add_comment``).

The profile is re-encoded with the extra strings and comment indices appended
(repeated fields concatenate on the wire) and decoded again, so the result is a
regular immutable Profile; this costs one encode and decode of the profile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Union

from . import _core
from ._proto_fields import ProfileField
from ._wire import LEN, VARINT, tag, varint

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile


def add_comment(p: "Profile", comments: Union[str, Iterable[str]]) -> "Profile":
    """A copy of ``p`` with ``comments`` appended to its comments."""
    if isinstance(comments, str):
        comments = [comments]
    comments = [str(c) for c in comments]
    if not comments:
        return p
    raw = bytearray(p.to_bytes(compress=False))
    first = len(p.strings)
    for c in comments:
        data = c.encode("utf-8")
        raw += tag(ProfileField.STRING_TABLE, LEN) + varint(len(data)) + data
    for i in range(len(comments)):  # one varint each: repeated fields need not be packed
        raw += tag(ProfileField.COMMENT, VARINT) + varint(first + i)
    return p._derive(_core.decode(bytes(raw), _core.DEFAULT_MAX_DECOMPRESSED_SIZE))
