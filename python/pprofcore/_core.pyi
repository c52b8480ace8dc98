# Type stubs of the private compiled module pprofcore._core, generated with
# `pybind11-stubgen pprofcore._core` (plus DecodeError's attributes and the item types of
# returned dicts and lists, for `mypy --strict` users). Use pprofcore.*.
"""
pprofcore's compiled core. Use the pprofcore package, not this module.
"""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing
import typing_extensions

__all__: list[str] = [
    "DecodeError",
    "DeltaComputer",
    "GzipError",
    "LocationSums",
    "Merger",
    "NodeTable",
    "Profile",
    "ProfileError",
    "Strings",
    "add_label_frames",
    "aggregate",
    "aggregate_from_locations",
    "apply_symbols",
    "compact",
    "decode",
    "decode_file",
    "decode_file_repair",
    "decode_repair",
    "derived_aggregate",
    "derived_sample_paths",
    "drop_go_type_params",
    "drop_type_params",
    "filter_by_name",
    "frame_columns",
    "gunzip",
    "gzip",
    "have_isal",
    "have_libdeflate",
    "have_zstd",
    "hidden_sample_paths",
    "keep_labels",
    "keep_samples",
    "kept_output",
    "load_many",
    "location_sums",
    "mapped_sample_paths",
    "merge",
    "merge_files",
    "prune",
    "prune_from",
    "rename_label",
    "rename_units",
    "repair_truncated_stacks",
    "sample_group_ids",
    "samples_with_label",
    "scale_n",
    "select_sample_types",
    "set_label",
    "share_tag_signatures",
    "show_from",
    "stack_ids",
    "unzstd",
    "used_locations",
]
DEFAULT_MAX_DECOMPRESSED_SIZE: int
MAX_INLINE_LABEL_TYPES: int

class DecodeError(ValueError):
    """
    Malformed or unsupported profile input. Attributes: reason, field, offset (byte offset or None).
    """

    reason: str
    field: str
    offset: int | None
    path: str

class GzipError(DecodeError):
    """
    Corrupt, truncated or oversized gzip input.
    """

class ProfileError(ValueError):
    """
    A valid profile that the operation cannot handle.
    """

class Profile:
    """
    Immutable columnar pprof profile (see pprofcore.Profile).
    """
    def check_invariants(self) -> None: ...
    def columns(self) -> dict[str, typing.Any]:
        """
        All columns as read-only zero-copy NumPy views keyed by 'table.column'.
        """
    def encode(self, compress: bool = True, level: typing.SupportsInt | typing.SupportsIndex = -1) -> bytes: ...
    def abs_total(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        """
        Sum of |value| of one sample type over every sample (None when it leaves int64).
        """
    def equals(self, arg0: Profile) -> bool: ...
    def header_codes(self) -> dict:
        """
        String codes of a report's header as lists: sample_types ((type, unit) pairs), comments, mapping ((filename, build_id) of the first mapping, or None). Plain Python objects: no NumPy is imported.
        """
    def memory_bytes(self) -> int: ...
    def string(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> str: ...
    def string_list(self) -> list[str]:
        """
        The string table as a list of str.
        """
    @property
    def default_sample_type_code(self) -> int: ...
    @property
    def doc_url_code(self) -> int: ...
    @property
    def drop_frames_code(self) -> int: ...
    @property
    def duration_nanos(self) -> int: ...
    @property
    def has_period_type(self) -> bool: ...
    @property
    def keep_frames_code(self) -> int: ...
    @property
    def num_samples(self) -> int: ...
    @property
    def num_strings(self) -> int: ...
    @property
    def num_types(self) -> int: ...
    @property
    def period(self) -> int: ...
    @property
    def period_type_codes(self) -> tuple[int, int]: ...
    @property
    def time_nanos(self) -> int: ...

class Merger:
    def __init__(self) -> None: ...
    def add(self, arg0: Profile) -> None: ...
    def add_file(self, path: str | bytes, max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296) -> None: ...
    def memory_bytes(self) -> int: ...
    def result(self) -> Profile: ...
    @property
    def num_inputs(self) -> int: ...
    @property
    def num_samples(self) -> int: ...

class DeltaComputer:
    def __init__(self, sample_types: collections.abc.Sequence[str]) -> None: ...
    def delta(self, arg0: Profile) -> Profile: ...
    def delta_bytes(
        self,
        data: typing_extensions.Buffer,
        compress: bool = True,
        level: typing.SupportsInt | typing.SupportsIndex = -1,
        max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296,
    ) -> bytes: ...
    def memory_bytes(self) -> int: ...
    @property
    def num_calls(self) -> int: ...
    @property
    def num_states(self) -> int: ...

class Strings:
    """
    A read-only sequence of str (invalid UTF-8 replaced), made on access.
    """
    def __eq__(self, arg0: object) -> bool: ...
    def __getitem__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> str: ...
    def __len__(self) -> int: ...
    def tolist(self) -> list[str]:
        """
        Every string, as a list.
        """

class NodeTable:
    """
    pprof report nodes with flat/cum sums.
    """
    def __len__(self) -> int: ...
    def columns(self) -> dict[str, typing.Any]:
        """
        Columns as read-only NumPy views.
        """
    def edges(
        self,
        profile: Profile,
        node_mask: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
        label_type: typing.SupportsInt | typing.SupportsIndex = -1,
        label_div_type: typing.SupportsInt | typing.SupportsIndex = -1,
        node_keep: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
        sample_keep: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
        hidden: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
    ) -> dict[str, typing.Any]:
        """
        Call edges touching the masked nodes (among the kept ones): src, dst, weight (n x types), inline; sample_keep (one byte per sample) walks only the samples it marks, hidden (one byte per location) passes over the locations it marks.
        """
    def edge_list(
        self,
        profile: Profile,
        node_mask: str | bytes,
        label_type: typing.SupportsInt | typing.SupportsIndex,
        label_div_type: typing.SupportsInt | typing.SupportsIndex,
        node_keep: str | bytes,
        type: typing.SupportsInt | typing.SupportsIndex,
    ) -> tuple:
        """
        edges() with bytes masks, as lists (src, dst, weight of `type`, inline).
        """
    def files(self) -> list[str]: ...
    def folded(
        self,
        profile: Profile,
        type: typing.SupportsInt | typing.SupportsIndex,
        group: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
        prefix_frames: collections.abc.Sequence[collections.abc.Sequence[str]],
    ) -> str:
        """
        Collapsed stacks text, one line per distinct stack.
        """
    def inline_label_list(self) -> list[int]: ...
    def order(
        self, profile: Profile, type: typing.SupportsInt | typing.SupportsIndex, by_cum: bool = False
    ) -> numpy.ndarray:
        """
        Rows in pprof's report order for one sample type (zero rows left out).
        """
    def order_list(
        self, profile: Profile, type: typing.SupportsInt | typing.SupportsIndex, by_cum: bool = False
    ) -> list[int]:
        """
        order() as a list: the command line's quick reports import no NumPy.
        """
    def printable_names(self) -> list[str]: ...
    def type_sums(self, type: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        """
        (flat, cum) of every row for one sample type, as lists.
        """
    @property
    def n_types(self) -> int: ...

def add_label_frames(
    profile: Profile,
    root_keys: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    leaf_keys: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    row_text: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    extra_strings: collections.abc.Sequence[str],
) -> tuple[Profile, bool, bool]: ...
def aggregate(
    profile: Profile,
    granularity: str = "functions",
    inline_frames: bool = True,
    label_type: typing.SupportsInt | typing.SupportsIndex = -1,
    label_div_type: typing.SupportsInt | typing.SupportsIndex = -1,
    sums: bool = True,
) -> NodeTable:
    """
    Flat/cum per pprof report node, all sample types at once.
    """

class LocationSums:
    """
    Per location of a profile: flat and cum of every sample type, and its frames.
    """

def location_sums(profile: Profile) -> LocationSums:
    """
    The sums aggregate_from_locations() builds node tables from, one pass over the samples.
    """

def aggregate_from_locations(
    profile: Profile,
    sums: LocationSums,
    granularity: str = "functions",
    inline_frames: bool = True,
    label_type: typing.SupportsInt | typing.SupportsIndex = -1,
    label_div_type: typing.SupportsInt | typing.SupportsIndex = -1,
    max_walked_share: typing.SupportsFloat | typing.SupportsIndex = 0.5,
) -> NodeTable | None:
    """
    aggregate() from the profile's location_sums(); None when the frames it would walk are more than max_walked_share of all.
    """

def derived_aggregate(
    profile: Profile | None,
    parent: Profile,
    parent_nodes: NodeTable,
    kept: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    hidden: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None,
    granularity: str = "functions",
    inline_frames: bool = True,
    label_type: typing.SupportsInt | typing.SupportsIndex = -1,
    label_div_type: typing.SupportsInt | typing.SupportsIndex = -1,
    deferred: bool = False,
) -> NodeTable | None:
    """
    aggregate() of a profile that filter_by_name made from `parent`, from parent's table; None when it must be aggregated anew. deferred: `profile` holds only the tables of a deferred output (None: parent's), whose samples are read in parent's.
    """

def call_tree(
    profile: Profile,
    nodes: NodeTable,
    type: typing.SupportsInt | typing.SupportsIndex,
    base: Profile | None = None,
    base_nodes: NodeTable | None = None,
    base_type: typing.SupportsInt | typing.SupportsIndex = 0,
    inverted: bool = False,
    min_fraction: typing.SupportsFloat | typing.SupportsIndex = 0.0,
    method: str = "auto",
    sums: PathSums | None = None,
    kept: KeptTree | None = None,
) -> dict[str, typing.Any]:
    """
    Flame graph call tree: nodes in pre-order (parent, frame, depth, self, total[, base_*]) and frames. method: 'trie' builds every node then trims (the reference), 'pruned' never builds trimmed nodes, 'auto' is 'pruned' when min_fraction > 0. sums: _core.path_sums of the same profile, nodes and direction (used by the pruned build without a base). kept: _core.kept_tree of the same profile, nodes and direction: a type it covers is read off it, others split from its sums.
    """

class PathSums:
    """
    Every sample type's frame sums of one profile and node table (_core.path_sums), kept so call_tree(sums=...) of another sample type reads no frame outside the kept tree.
    """
    @property
    def nbytes(self) -> int: ...

class KeptTree:
    """
    Every sample type's trimmed call tree of one profile and node table (_core.kept_tree), kept so call_tree(kept=...) reads a covered type's tree off it without a split.
    """
    def __len__(self) -> int: ...
    def built_for(self, profile: Profile) -> bool:
        """
        Whether this tree's sums were computed for this C++ profile (call_tree(kept=...) takes no other).
        """
    def covers(
        self, type: typing.SupportsInt | typing.SupportsIndex, min_fraction: typing.SupportsFloat | typing.SupportsIndex
    ) -> bool:
        """
        Whether the tree of this sample type trimmed at min_fraction is read off this one.
        """
    @property
    def nbytes(self) -> int: ...

def kept_tree(
    profile: Profile,
    nodes: NodeTable,
    inverted: bool = False,
    min_fraction: typing.SupportsFloat | typing.SupportsIndex = 0.0005,
    slack: typing.SupportsFloat | typing.SupportsIndex = 0.5,
) -> KeptTree:
    """
    Every sample type's trimmed call tree (trimmed at slack * min_fraction) and path sums, for call_tree(kept=...) and derive_kept_tree.
    """

def derive_kept_tree(
    child: Profile,
    nodes: NodeTable,
    parent: KeptTree,
    kept: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
    hidden: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
    used: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
    deferred: bool = False,
) -> KeptTree | None:
    """
    The kept tree of child, whose samples are some of parent's profile's unchanged, in order, over an equal node table: parent's less the dropped samples'. kept (one byte per parent sample, as filter_by_name gives) says which, instead of matching them. With hidden (one byte per location, filter_by_name's), child is parent's profile after hide or show: parent's tree with the hidden frames spliced out (used: the parent's used_locations, when known, spares the locations in no stack). None when child is not such a profile, the result would not be exact, or building anew is cheaper. deferred: child holds only the tables of filter_by_name's deferred output, whose samples are parent's kept ones (less the hidden locations); call_tree then reads only the trees the result covers.
    """

def path_sums(profile: Profile, nodes: NodeTable, inverted: bool = False) -> PathSums:
    """
    Each sample's path length and pprof's flat and cum per frame for every sample type, for call_tree(sums=...).
    """

def call_graph(
    profile: Profile,
    nodes: NodeTable,
    type: typing.SupportsInt | typing.SupportsIndex,
    kept: typing.Any = None,
    tag_cutoff: typing.SupportsInt | typing.SupportsIndex = 0,
    edges: bool = True,
    tags: bool = True,
    paths: SamplePaths | None = None,
    walk_parts: typing.SupportsInt | typing.SupportsIndex = 0,
) -> dict[str, typing.Any]:
    """
    pprof's call graph over the kept report nodes: flat, cum, edges (src, dst, weight, residual, inline), tag_count. edges=False / tags=False skip computing those (left empty / zero); paths: the profile's sample_paths over nodes, walked instead of the locations (the samples of paths derived with no child are their parent's, whatever profile is given); walk_parts: threads the walk is split into (0: one per core for big profiles).
    """

class SamplePaths:
    """
    Each sample's report nodes, root first: what call_graph walks (keep one per profile and node table)
    """

    def __eq__(self, arg0: object) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def nbytes(self) -> int:
        """
        Bytes the paths hold (what a cache of them weighs).
        """

def graph_entropy_order(graph: dict[str, typing.Any], name_rank: typing.Any) -> numpy.typing.NDArray[numpy.int32]:
    """
    pprof's EntropyOrder of graph['nodes'] (a call_graph() dict with nodes and keep_edge) as an int32 array; name_rank orders the nodes' names.
    """

def graph_remove_redundant_edges(
    graph: dict[str, typing.Any], order: typing.Any, name_rank: typing.Any
) -> numpy.typing.NDArray[numpy.uint8]:
    """
    pprof's RemoveRedundantEdges: graph['keep_edge'] (uint8) with the redundant residual edges cleared.
    """

def mapped_sample_paths(
    profile: Profile,
    nodes: NodeTable,
    from_nodes: NodeTable,
    from_paths: SamplePaths,
    parts: typing.SupportsInt | typing.SupportsIndex = 0,
) -> SamplePaths | None:
    """
    The sample_paths of profile over nodes, renamed from from_paths (its paths over from_nodes) when each location has as many nodes in both tables and each row of from_nodes always stands for the same row of nodes (files from lines); else None. from_paths that read another profile's samples (derived with no child) are renamed over those.
    """

def derived_sample_paths(
    profile: Profile | None,
    nodes: NodeTable,
    parent: Profile,
    parent_nodes: NodeTable,
    parent_paths: SamplePaths,
    kept: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
) -> SamplePaths | None:
    """
    The sample_paths of profile over nodes, copied from parent_paths when profile's samples are some of parent's (same stacks and values, in order) and both node tables map locations alike; else None. kept (one byte per parent sample, as filter_by_name gives) says which, instead of matching them. profile None (with kept): the filter output's samples were left in parent (a deferred copy); the paths then read parent's samples, and call_graph takes them from there.
    """

def hidden_sample_paths(
    profile: Profile | None,
    nodes: NodeTable,
    parent: Profile,
    parent_nodes: NodeTable,
    parent_paths: SamplePaths,
    kept: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    hidden: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
) -> SamplePaths | None:
    """
    The sample_paths of profile over nodes, made from parent by a name filter that took the locations `hidden` marks out of every stack and kept the samples `kept` marks (filter_by_name's record): parent_paths read with the hidden frames skipped (no copy); None when the node tables do not allow it (a location kept with some of its lines hidden). profile None: the filter output's samples were left in parent, as derived_sample_paths takes it.
    """

def share_tag_signatures(
    profile: Profile,
    paths: SamplePaths,
    from_profile: Profile,
    from_paths: SamplePaths,
    kept: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
) -> bool:
    """
    Gives paths (of profile) the label tag signatures from_paths (of from_profile) found, so no build finds them again: when profile is from_profile, or holds the samples of from_profile that kept marks (one byte per sample, as filter_by_name gives) with the same labels. False when there were none to give or they do not fit.
    """

def sample_paths(
    profile: Profile, nodes: NodeTable, parts: typing.SupportsInt | typing.SupportsIndex = 0
) -> SamplePaths:
    """
    The SamplePaths of profile over the report nodes of nodes; parts: threads the walk is split into (0: two or more for big profiles while a core is idle). The paths are the same for any.
    """

def graph_layout(
    width: typing.Any,
    height: typing.Any,
    src: typing.Any,
    dst: typing.Any,
    rank_gap: typing.SupportsFloat | typing.SupportsIndex = 48.0,
    node_gap: typing.SupportsFloat | typing.SupportsIndex = 18.0,
) -> dict[str, typing.Any]:
    """
    A layered (Sugiyama) drawing, top-down: node centres x, y, rank; per edge upward (closes a cycle) and its route (point_offsets into px, py, from the caller's box to the callee's); width, height.
    """

def apply_symbols(
    profile: Profile,
    location: typing.Any,
    frame_offsets: typing.Any,
    name: typing.Any,
    system_name: typing.Any,
    filename: typing.Any,
    line: typing.Any,
    column: typing.Any,
    start_line: typing.Any,
    strings: collections.abc.Sequence[str],
    mapping_flags: typing.Any,
) -> Profile:
    """
    A copy of profile whose given locations take the resolved frames (cpp symbolize.hpp).
    """

def with_main_mapping(profile: Profile, exec_name: str) -> Profile:
    """
    pprof's driver step before symbolizing: a placeholder mapping for a profile without any, and the executable named on the command line as the first mapping's file (cpp symbolize.hpp).
    """

def with_function_names(profile: Profile, rows: typing.Any, names: list[str]) -> Profile:
    """
    A copy of profile whose given function rows take the given names, system names unchanged (cpp symbolize.hpp).
    """

def with_mapping_files(profile: Profile, rows: typing.Any, files: list[str]) -> Profile:
    """
    A copy of profile whose given mapping rows have the given files (cpp symbolize.hpp).
    """

def demangle_candidates(profile: Profile, force: bool) -> numpy.typing.NDArray[numpy.int32]:
    """
    The function rows whose name pprof's demangling may change (a superset; cpp symbolize.hpp).
    """

def compact(arg0: Profile) -> Profile: ...
def decode(
    data: typing_extensions.Buffer,
    max_size: typing.SupportsInt | typing.SupportsIndex,
    inflater: str = "auto",
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> Profile: ...
def decode_file(
    path: str | bytes, max_size: typing.SupportsInt | typing.SupportsIndex, inflater: str = "auto"
) -> Profile: ...
def decode_otlp(
    data: typing_extensions.Buffer, max_size: typing.SupportsInt | typing.SupportsIndex
) -> list[tuple[Profile, dict[str, typing.Any]]]:
    """
    Every profile of an OTLP message: a list of (Profile, origin dict).
    """

def decode_otlp_file(
    path: str | bytes, max_size: typing.SupportsInt | typing.SupportsIndex
) -> list[tuple[Profile, dict[str, typing.Any]]]: ...
def encode_otlp(
    profile: Profile,
    resource: dict[str, typing.Any],
    scope_name: str,
    scope_version: str,
    compress: bool = False,
    level: typing.SupportsInt | typing.SupportsIndex = -1,
) -> bytes:
    """
    The profile as OTLP ProfilesData protobuf bytes.
    """

def read_jfr(data: typing_extensions.Buffer) -> Profile:
    """
    The profile of a JFR recording (every event kind read, side by side).
    """

def decode_file_repair(
    path: str | bytes, max_size: typing.SupportsInt | typing.SupportsIndex, inflater: str = "auto"
) -> tuple[Profile, dict[str, typing.Any]]: ...
def decode_repair(
    data: typing_extensions.Buffer, max_size: typing.SupportsInt | typing.SupportsIndex, inflater: str = "auto"
) -> tuple[Profile, dict[str, typing.Any]]:
    """
    Decodes in repair mode; returns (Profile, dict of repair counters).
    """

def drop_go_type_params(name: str) -> str:
    """
    One name without its type-parameter lists.
    """

def drop_type_params(profile: Profile) -> tuple[Profile, dict[str, int]]:
    """
    Go type-parameter lists removed from function names, equal functions merged.
    """

def filter_by_name(
    profile: Profile,
    focus: typing.Any,
    ignore: typing.Any,
    hide: typing.Any,
    show: typing.Any,
    universe: typing.Any = None,
    defer_unchanged: bool = False,
    defer_changed: bool = False,
) -> tuple[Profile | None, bool, bool, bool, bool, typing.Any, typing.Any]: ...
def frame_columns(profile: Profile) -> dict[str, typing.Any]:
    """
    Columns of the frames table (one row per sample x frame, leaf first).
    """

def gunzip(
    data: typing_extensions.Buffer,
    max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296,
    backend: str = "auto",
) -> bytes: ...
def gzip(
    data: typing_extensions.Buffer, level: typing.SupportsInt | typing.SupportsIndex = -1, backend: str = "auto"
) -> bytes: ...
def have_isal() -> bool: ...
def have_libdeflate() -> bool: ...
def have_zstd() -> bool: ...
def keep_labels(profile: Profile, keep: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]) -> Profile: ...
def keep_samples(profile: Profile, keep: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]) -> Profile: ...
def kept_output(
    profile: Profile,
    kept: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    hidden: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8] | None = None,
    tables: Profile | None = None,
) -> Profile:
    """
    The result a deferred filter_by_name stands for.
    """

def load_many(
    paths: collections.abc.Sequence[str],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
    max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296,
    inflater: str = "auto",
) -> list[Profile | Exception]:
    """
    Decodes files in parallel; Ctrl-C cancels between files. Each item is a Profile or the exception load of that file raises.
    """

def max_input_size(max_decompressed_size: typing.SupportsInt | typing.SupportsIndex, gzip: bool) -> int:
    """
    The most input bytes accepted under a max_decompressed_size (gzip input may be somewhat larger).
    """

def merge(profiles: collections.abc.Sequence[Profile]) -> Profile: ...
def merge_files(
    paths: collections.abc.Sequence[str],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
    max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296,
    progress: typing.Any = None,
) -> Profile: ...
def series_files(
    paths: collections.abc.Sequence[str],
    by: str = "functions",
    cum: bool = False,
    sample_type: typing.Any = None,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
    max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296,
    labels: list[tuple[typing.Any, ...]] = ...,
) -> dict[str, typing.Any]:
    """
    Per-profile non-zero flat (or cum) values per report node (and label values) of each file, as arrays (fleet series); by '' with labels: per label values only.
    """

def series_profiles(
    profiles: collections.abc.Sequence[Profile],
    by: str = "functions",
    cum: bool = False,
    sample_type: typing.Any = None,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
    labels: list[tuple[typing.Any, ...]] = ...,
) -> dict[str, typing.Any]:
    """
    series_files for decoded profiles (the profiles are immutable; they are read without the GIL).
    """

def package_of(name: str, file: str = "") -> str:
    """
    The package of a function from its name (and file): Go import path, Java package, C++/Rust namespace, Python module; '' when the name has none.
    """

def prune(profile: Profile, drop: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]) -> Profile: ...
def prune_from(profile: Profile, function_match: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]) -> Profile: ...
def rename_label(profile: Profile, from_key: str, to_key: str) -> Profile: ...
def rename_units(
    arg0: Profile, arg1: collections.abc.Sequence[str], arg2: str, arg3: typing.SupportsInt | typing.SupportsIndex
) -> Profile: ...
def repair_truncated_stacks(
    profile: Profile,
    depth: typing.SupportsInt | typing.SupportsIndex = 0,
    window: typing.SupportsInt | typing.SupportsIndex = 8,
) -> tuple[Profile, dict[str, int]]:
    """
    Go stacks cut at the runtime's depth completed from stacks sharing their root-most frames (cpp go_repairs.hpp).
    """

def sample_group_ids(profile: Profile) -> numpy.ndarray:
    """
    Per sample, a dense id of its (stack, labels) pair: pprof's merge key.
    """

def samples_with_label(
    profile: Profile, row_match: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]
) -> numpy.ndarray: ...
def scale_n(arg0: Profile, arg1: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex]) -> Profile: ...
def select_sample_types(
    profile: Profile, indices: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]
) -> Profile: ...
def set_label(profile: Profile, key: str, values: collections.abc.Sequence[str]) -> Profile: ...
def show_from(profile: Profile, match: typing.Any, universe: typing.Any = None) -> tuple[Profile, bool]: ...
def unzstd(
    data: typing_extensions.Buffer,
    max_size: typing.SupportsInt | typing.SupportsIndex = 4294967296,
    prefix_only: bool = False,
) -> bytes:
    """
    zstd-compressed bytes decompressed (every frame); with prefix_only, the first 64 KiB only.
    """

def used_locations(profile: Profile) -> numpy.ndarray:
    """
    Per location, 1 when some sample's stack holds it (uint8).
    """

def stack_ids(profile: Profile) -> numpy.ndarray:
    """
    Per sample, a dense id of its stack (0.. in order of first appearance).
    """
