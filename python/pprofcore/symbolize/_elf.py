"""ELF headers a symbolizer needs: the file type, the loadable segments, the
address of ``.text`` and the GNU build id; and the relocation base that turns a
runtime address inside a mapping into the address the debug information uses.

The base follows the semantics of google/pprof's ``elfexec.GetBase`` and its
program-header selection (the ELF program header that backs the mapping's file
offset), for user-space executables and shared objects. Kernel images
(``_stext`` heuristics) are not supported and fall back to no adjustment only
where pprof does so."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import List, Optional

ET_EXEC, ET_DYN, ET_REL = 2, 3, 1
PT_LOAD, PT_NOTE = 1, 4
PF_X = 1
NT_GNU_BUILD_ID = 3
PAGE = 4096


class NotELF(ValueError):
    """The file is not an ELF object (or is truncated)."""


@dataclass
class Segment:
    type: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int


@dataclass
class ElfInfo:
    path: str
    type: int
    segments: List[Segment] = field(default_factory=list)
    text_addr: Optional[int] = None  # address of the .text section
    build_id: str = ""

    @property
    def loads(self) -> List[Segment]:
        return [s for s in self.segments if s.type == PT_LOAD]

    def text_segment(self) -> Optional[Segment]:
        """The executable LOAD segment holding ``.text`` (pprof's FindTextProgHeader)."""
        if self.text_addr is None:
            return None
        for s in self.loads:
            if s.flags & PF_X and s.vaddr <= self.text_addr < s.vaddr + s.memsz:
                return s
        return None


HEADER = 64  # the ELF header of a 64-bit file; a 32-bit one takes 52 bytes
MAX_ENTSIZE = 4096  # program/section header entries are 32 to 64 bytes: more is damage
NOTE_WINDOW = 1 << 20  # bytes of a PT_NOTE segment searched for the build id


def read_elf(path: str) -> ElfInfo:
    """Parses the ELF header, program headers, section names and build id of
    ``path``. Raises :class:`NotELF` for anything that is not a readable ELF file.

    Only the headers are read, with seeks (a binary may be gigabytes, and a
    mapping may name any file): the first bytes decide whether the file is ELF
    at all, then the program and section header tables, the name of each
    section until ``.text`` and the start of each PT_NOTE segment."""
    with open(path, "rb") as f:
        data = f.read(HEADER)
        if len(data) < 52 or data[:4] != b"\x7fELF":
            raise NotELF(f"{path}: not an ELF file")
        return _parse(f, path, data)


def _read_at(f, offset: int, size: int) -> bytes:
    """Up to ``size`` bytes at ``offset`` (fewer at the end of the file)."""
    left = os.fstat(f.fileno()).st_size - offset
    if offset < 0 or left <= 0:
        return b""
    f.seek(offset)
    return f.read(min(size, left))  # never a buffer larger than the file


def _parse(f, path: str, head: bytes) -> ElfInfo:
    cls, enc = head[4], head[5]
    if cls not in (1, 2) or enc not in (1, 2):
        raise NotELF(f"{path}: unknown ELF class {cls} or data encoding {enc}")
    e = "<" if enc == 1 else ">"
    wide = cls == 2
    try:
        if wide:
            (etype, _m, _v, _entry, phoff, shoff, _fl, _eh, phentsize, phnum, shentsize, shnum, shstrndx) = (
                struct.unpack_from(e + "HHIQQQIHHHHHH", head, 16)
            )
        else:
            (etype, _m, _v, _entry, phoff, shoff, _fl, _eh, phentsize, phnum, shentsize, shnum, shstrndx) = (
                struct.unpack_from(e + "HHIIIIIHHHHHH", head, 16)
            )
        info = ElfInfo(path, etype)
        ph_format = e + ("IIQQQQQQ" if wide else "IIIIIIII")
        table = _table(f, path, "program", phoff, phnum, phentsize, struct.calcsize(ph_format))
        for i in range(phnum):
            if wide:
                ptype, flags, off, vaddr, _pa, filesz, memsz, _al = struct.unpack_from(ph_format, table, i * phentsize)
            else:
                ptype, off, vaddr, _pa, filesz, memsz, flags, _al = struct.unpack_from(ph_format, table, i * phentsize)
            info.segments.append(Segment(ptype, flags, off, vaddr, filesz, memsz))
        sh_format = e + ("IIQQQQ" if wide else "IIIIII")
        table = _table(f, path, "section", shoff, shnum, shentsize, struct.calcsize(sh_format))
        sections = [struct.unpack_from(sh_format, table, i * shentsize) for i in range(shnum)]
        if sections and shstrndx < len(sections):
            names_off = sections[shstrndx][4]
            for name, _t, _fl, addr, _o, _s in sections:
                if _read_at(f, names_off + name, 6) == b".text\0":
                    info.text_addr = addr
                    break
    except (struct.error, OverflowError) as err:  # an offset past the file, or past any file
        raise NotELF(f"{path}: truncated ELF headers ({err})") from None
    info.build_id = _build_id(f, info.segments, e)
    return info


def _table(f, path: str, what: str, offset: int, count: int, entsize: int, needed: int) -> bytes:
    """The ``count`` entries of a header table, read in one piece."""
    if count == 0:
        return b""
    if not needed <= entsize <= MAX_ENTSIZE:
        raise NotELF(f"{path}: {what} header entries of {entsize} bytes (expected {needed})")
    data = _read_at(f, offset, count * entsize)
    if len(data) < (count - 1) * entsize + needed:
        raise NotELF(f"{path}: truncated ELF headers ({what} header table at {offset:#x} past the end of the file)")
    return data


def _build_id(f, segments: List[Segment], e: str) -> str:
    """The GNU build id from the PT_NOTE segments, as lowercase hex ("" if none)."""
    for s in segments:
        if s.type != PT_NOTE:
            continue
        # the build id note comes first in practice; a damaged size reads no further
        data = _read_at(f, s.offset, min(s.filesz, NOTE_WINDOW))
        o, end = 0, len(data)
        while o + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from(e + "III", data, o)
            name_at = o + 12
            desc_at = name_at + ((namesz + 3) & ~3)
            if ntype == NT_GNU_BUILD_ID and data[name_at : name_at + namesz] == b"GNU\0":
                return data[desc_at : desc_at + descsz].hex()
            o = desc_at + ((descsz + 3) & ~3)
    return ""


class BaseError(ValueError):
    """No relocation base can be computed for this mapping and binary."""


def segment_for_mapping(elf: ElfInfo, start: int, limit: int, offset: int, address: int) -> Optional[Segment]:
    """The LOAD segment backing a runtime mapping, chosen as pprof does: the
    segments whose (page-aligned) file range overlaps the mapping's, narrowed by
    the file offset of ``address`` when several do. Kernel-like mappings (empty
    or in the upper half of the address space) use the ``.text`` segment."""
    if start >= limit or limit >= 1 << 63:
        return elf.text_segment()
    loads = elf.loads
    if not loads:
        return None
    size = limit - start
    found = []
    for s in loads:
        if s.filesz == 0:  # their file offsets are arbitrary
            continue
        seg_limit = s.offset + s.memsz
        if not (offset < seg_limit and s.offset < offset + size):
            continue
        aligned = s.offset - (s.vaddr & (PAGE - 1)) if s.offset > (s.vaddr & (PAGE - 1)) else 0
        if offset < aligned:  # the mapping comes from an earlier segment
            continue
        # starts mid-segment, covers less than a page of it and extends past it
        if offset > s.offset and seg_limit < offset + PAGE and offset + size >= seg_limit + PAGE:
            continue
        found.append(s)
    if not found:
        raise BaseError("no program header matches the mapping")
    if len(found) == 1:
        return found[0]
    file_offset = address - start + offset
    hit = [s for s in found if s.offset <= file_offset < s.offset + s.memsz]
    if len(hit) != 1:
        raise BaseError(f"{len(hit)} program headers match file offset {file_offset:#x}")
    return hit[0]


def relocation_base(elf: ElfInfo, seg: Optional[Segment], start: int, limit: int, offset: int) -> int:
    """What to subtract from a runtime address to get the address in the binary
    (pprof's GetBase for user-space ELF files; results are modulo 2**64)."""
    mask = (1 << 64) - 1
    if start == 0 and offset == 0 and limit in (0, mask):
        return 0  # a fake mapping over the whole address space: already adjusted
    if elf.type == ET_EXEC:
        if seg is None:
            return 0  # fixed-address executable
        if 0 < start < 1 << 63:
            return (start - offset + seg.offset - seg.vaddr) & mask
        if seg.vaddr == (start - offset) & mask:
            return offset
        if start == 0 and limit != 0:
            return (-seg.vaddr) & mask
        if start >= seg.vaddr and limit > start and offset in (0, start, 0xC000000000000000):
            return (start - seg.vaddr) & mask
        raise BaseError(f"cannot place EXEC segment for mapping start={start:#x} limit={limit:#x} offset={offset:#x}")
    if elf.type == ET_REL:
        if offset != 0:
            raise BaseError("relocatable object with a non-zero mapping offset")
        return start
    if elf.type == ET_DYN:
        if seg is None:
            return (start - offset) & mask
        return (start - offset + seg.offset - seg.vaddr) & mask
    raise BaseError(f"unsupported ELF file type {elf.type}")
