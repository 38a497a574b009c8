# SPDX-License-Identifier: MIT
"""pftrace.py: a Perfetto trace as `stallscope export --perfetto` writes it,
decoded by protoc (protobuf-compiler) against tests/perfetto/stallscope.proto
and read back the way trace_processor reads it: each packet sequence's
defaults (its track, its clock), its incremental clock (clock 64, deltas
from the sequence's clock snapshot; a packet with timestamp_clock_id 3 is
absolute CLOCK_MONOTONIC), its interned names and strings; then slices
paired begin with end per track, instants, counters.

    t = pftrace.load("trace.pftrace", "tests/perfetto/stallscope.proto")
    t.unknown          lines protoc printed as bare field numbers
    t.tracks           uuid -> {"name", "parent", "kind", ...}
    t.by_name("Frames")  the track whose name is that (None if none)
    t.slices[uuid]     [(begin_ns, end_ns, name, args), ...] in order
    t.unclosed[uuid]   slices begun and never ended
    t.instants[uuid]   [(ns, name, args)]
    t.counters[uuid]   [(ns, value)]
    t.samples          callstack samples (PerfSample): [(ns, pid, tid, frames
                       outermost first, cpu mode, the frames' mapping paths)]
    t.errors           what did not read as trace_processor would
"""
import gzip
import re
import subprocess


def _parse_text(text):
    """protoc's text format into nested lists of (key, value) pairs."""
    root = []
    stack = [root]
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s == "}":
            stack.pop()
            continue
        if s.endswith("{"):
            node = []
            stack[-1].append((s[:-1].strip(), node))
            stack.append(node)
            continue
        k, _, v = s.partition(": ")
        if v.startswith('"'):
            v = bytes(v[1:-1], "latin-1").decode("unicode_escape").encode("latin-1").decode("utf-8")
        stack[-1].append((k, v))
    return root


def _get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def _all(node, key):
    return [v for k, v in node if k == key]


class Trace:
    def __init__(self, text):
        self.unknown = [l for l in text.splitlines() if re.match(r"\s*[0-9]+(:| \{)", l)]
        self.tracks = {}
        self.slices = {}
        self.unclosed = {}
        self.instants = {}
        self.counters = {}
        self.errors = []
        self.clocks = []         # the machine's clock snapshots: {id: ns}
        self.primary = None
        self.packets = 0
        self.samples = []
        seqs = {}
        stacks = {}
        for key, pkt in _parse_text(text):
            if key != "packet":
                self.errors.append("top-level field %r" % key)
                continue
            self.packets += 1
            sid = int(_get(pkt, "trusted_packet_sequence_id", "0"))
            st = seqs.setdefault(sid, {"track": None, "clock": None, "last": None})
            flags = int(_get(pkt, "sequence_flags", "0"))
            if flags & 1 or "names" not in st:
                for table in ("names", "keys", "strs", "fnames", "frames", "stacks", "paths", "maps"):
                    st[table] = {}
            d = _get(pkt, "trace_packet_defaults")
            if d is not None:
                st["clock"] = int(_get(d, "timestamp_clock_id", "0"))
                ted = _get(d, "track_event_defaults")
                st["track"] = int(_get(ted, "track_uuid")) if ted else None
            ind = _get(pkt, "interned_data")
            if ind is not None:
                if not flags & 2:
                    self.errors.append("seq %d: interned data without SEQ_NEEDS_INCREMENTAL_STATE" % sid)
                for kind, table in (("event_names", "names"), ("debug_annotation_names", "keys"),
                                    ("debug_annotation_string_values", "strs"),
                                    ("function_names", "fnames"), ("mapping_paths", "paths")):
                    for e in _all(ind, kind):
                        st[table][int(_get(e, "iid"))] = _get(e, "name", _get(e, "str"))
                # callstacks: what trace_processor's StackProfileSequenceState
                # looks up (a frame's name and mapping, a mapping's path)
                for e in _all(ind, "mappings"):
                    st["maps"][int(_get(e, "iid"))] = [int(x) for x in _all(e, "path_string_ids")]
                for e in _all(ind, "frames"):
                    st["frames"][int(_get(e, "iid"))] = (int(_get(e, "function_name_id", "0")),
                                                         int(_get(e, "mapping_id", "0")),
                                                         _get(e, "rel_pc"))
                for e in _all(ind, "callstacks"):
                    st["stacks"][int(_get(e, "iid"))] = [int(x) for x in _all(e, "frame_ids")]
            cs = _get(pkt, "clock_snapshot")
            if cs is not None:
                clk = {int(_get(c, "clock_id")): int(_get(c, "timestamp")) for c in _all(cs, "clocks")}
                inc = [c for c in _all(cs, "clocks") if _get(c, "is_incremental") == "true"]
                if inc:
                    st["last"] = clk[64]
                    if clk.get(3) != clk[64]:
                        self.errors.append("seq %d: clock 64 not snapshotted against MONOTONIC" % sid)
                else:
                    self.clocks.append(clk)
                if _get(cs, "primary_trace_clock") is not None:
                    self.primary = _get(cs, "primary_trace_clock")
                continue
            ts = _get(pkt, "timestamp")
            t = None
            if ts is not None:
                ts = int(ts)
                cid = int(_get(pkt, "timestamp_clock_id", "0"))
                if cid == 3:
                    t = ts
                elif cid == 0 and st["clock"] == 64:
                    if st["last"] is None:
                        self.errors.append("seq %d: a timestamp before the clock snapshot" % sid)
                        continue
                    st["last"] += ts
                    t = st["last"]
                else:
                    self.errors.append("seq %d: timestamp on clock %d" % (sid, cid or st["clock"]))
                    continue
            td = _get(pkt, "track_descriptor")
            if td is not None:
                self._track(td, t)
                continue
            ps = _get(pkt, "perf_sample")
            if ps is not None:
                self._sample(sid, st, flags, t, ps)
                continue
            te = _get(pkt, "track_event")
            if te is None:
                continue
            if t is None:
                self.errors.append("seq %d: an event without a timestamp" % sid)
                continue
            if _get(te, "name_iid") is not None or _get(te, "debug_annotations") is not None:
                if not flags & 2:
                    self.errors.append("seq %d: interned ids without SEQ_NEEDS_INCREMENTAL_STATE" % sid)
            uuid = int(_get(te, "track_uuid", st["track"] or 0))
            name = None
            if _get(te, "name_iid") is not None:
                iid = int(_get(te, "name_iid"))
                if iid not in st["names"]:
                    self.errors.append("seq %d: name iid %d not interned" % (sid, iid))
                name = st["names"].get(iid)
            args = {}
            for a in _all(te, "debug_annotations"):
                kid = int(_get(a, "name_iid"))
                if kid not in st["keys"]:
                    self.errors.append("seq %d: annotation name iid %d not interned" % (sid, kid))
                k = st["keys"].get(kid)
                for vk in ("string_value", "int_value", "double_value", "bool_value"):
                    v = _get(a, vk)
                    if v is not None:
                        args[k] = {"int_value": int, "double_value": float,
                                   "bool_value": lambda x: x == "true"}.get(vk, str)(v)
                if _get(a, "string_value_iid") is not None:
                    sidd = int(_get(a, "string_value_iid"))
                    if sidd not in st["strs"]:
                        self.errors.append("seq %d: string iid %d not interned" % (sid, sidd))
                    args[k] = st["strs"].get(sidd)
            typ = _get(te, "type")
            if uuid not in self.tracks:
                self.errors.append("event on undescribed track %d" % uuid)
            if typ == "TYPE_SLICE_BEGIN":
                stacks.setdefault(uuid, []).append((t, name, args))
            elif typ == "TYPE_SLICE_END":
                if not stacks.get(uuid):
                    self.errors.append("track %d: an end with no begin at %d" % (uuid, t))
                    continue
                b, n, a = stacks[uuid].pop()
                if t < b:
                    self.errors.append("track %d: '%s' ends before it begins" % (uuid, n))
                self.slices.setdefault(uuid, []).append((b, t, n, a))
            elif typ == "TYPE_INSTANT":
                self.instants.setdefault(uuid, []).append((t, name, args))
            elif typ == "TYPE_COUNTER":
                self.counters.setdefault(uuid, []).append((t, float(_get(te, "double_counter_value"))))
            else:
                self.errors.append("event type %r" % typ)
        for uuid, st in stacks.items():
            if st:
                self.unclosed[uuid] = st
        for uuid in self.slices:
            self.slices[uuid].sort(key=lambda s: (s[0], -s[1]))

    def _track(self, td, t):
        uuid = int(_get(td, "uuid"))
        d = {"uuid": uuid, "parent": int(_get(td, "parent_uuid", "0")), "ts": t,
             "name": _get(td, "name"), "description": _get(td, "description"), "kind": "track"}
        p, th, c = _get(td, "process"), _get(td, "thread"), _get(td, "counter")
        if p is not None:
            d.update(kind="process", pid=int(_get(p, "pid")), name=_get(p, "process_name"))
        if th is not None:
            d.update(kind="thread", pid=int(_get(th, "pid")), tid=int(_get(th, "tid")),
                     name=_get(th, "thread_name"))
        if c is not None:
            d.update(kind="counter", unit_name=_get(c, "unit_name"))
        if uuid in self.tracks:
            self.errors.append("track %d described twice" % uuid)
        self.tracks[uuid] = d

    def _sample(self, sid, st, flags, t, ps):
        if t is None:
            self.errors.append("seq %d: a sample without a timestamp" % sid)
            return
        if not flags & 2:
            self.errors.append("seq %d: a sample without SEQ_NEEDS_INCREMENTAL_STATE" % sid)
        cs = int(_get(ps, "callstack_iid", "0"))
        if cs not in st["stacks"]:
            self.errors.append("seq %d: callstack iid %d not interned" % (sid, cs))
            return
        names, maps = [], []
        for fid in st["stacks"][cs]:
            if fid not in st["frames"]:
                self.errors.append("seq %d: frame iid %d not interned" % (sid, fid))
                return
            nid, mid, rel_pc = st["frames"][fid]
            if nid not in st["fnames"] or mid not in st["maps"] or rel_pc is None:
                self.errors.append("seq %d: frame %d: name %d, mapping %d, rel_pc %s" %
                                   (sid, fid, nid, mid, rel_pc))
                return
            path = st["maps"][mid]
            if any(p not in st["paths"] for p in path):
                self.errors.append("seq %d: mapping %d: a path not interned" % (sid, mid))
                return
            names.append(st["fnames"][nid])
            maps.append("".join("/" + st["paths"][p] for p in path))
        self.samples.append((t, int(_get(ps, "pid")), int(_get(ps, "tid")), names,
                             _get(ps, "cpu_mode"), maps))

    def by_name(self, name, parent=None):
        for t in self.tracks.values():
            if t["name"] == name and (parent is None or t["parent"] == parent):
                return t
        return None

    def children(self, uuid):
        return [t for t in self.tracks.values() if t["parent"] == uuid]


def decode(path, proto):
    """protoc --decode's text of the trace at PATH (gzip or not)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    import os
    p = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(os.path.abspath(proto)),
                        "--decode=perfetto.protos.Trace", os.path.basename(proto)],
                       input=data, capture_output=True, check=False)
    if p.returncode:
        raise RuntimeError("protoc --decode failed: " + p.stderr.decode(errors="replace"))
    return p.stdout.decode("utf-8")


def load(path, proto):
    return Trace(decode(path, proto))
