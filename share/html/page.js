// SPDX-License-Identifier: MIT
// page.js: draws `stallscope html`'s page from its data (src/cmd/html.c):
// per run, every frame on a uPlot plot with the segments shaded and the
// stalls marked in their cause's colour, the stall table, the stall seconds
// by cause, the flame graphs of the selected stall and of all stalls by
// cause (flame.js), the frame-time histogram and percentile curve, the
// metrics with METRICS.md's definitions, run.ini. window.ssReport exposes
// what was drawn (the tests read it).
"use strict";

const CAUSE_COLORS = {
	disk: "#1f77b4", swap: "#9467bd", reclaim: "#8c564b", gpu: "#e377c2", cpu: "#d62728",
	runq: "#ff7f0e", io: "#17becf", wait: "#2ca02c", fault: "#7f7f7f", unknown: "#bcbd22",
};
const CAUSE_ORDER = ["disk", "swap", "reclaim", "gpu", "cpu", "runq", "io", "wait", "fault", "unknown"];

function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (k === "class") e.className = v;
		else if (k === "text") e.textContent = v;
		else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
		else e.setAttribute(k, v);
	}
	for (const k of kids) if (k != null) e.append(k);
	return e;
}

function fmt(v, d) {
	if (v === null || v === undefined || Number.isNaN(v)) return "-";
	return typeof v === "number" ? v.toFixed(d === undefined ? 3 : d) : String(v);
}

// METRICS.md's column table: "| `name` | unit | definition |" rows.
function metricDocs() {
	const md = document.getElementById("ss-metrics-md").textContent;
	const docs = {};
	for (const line of md.split("\n")) {
		const m = line.match(/^\| (`[^|]+`)\s*\|\s*([^|]*)\|\s*(.*)\|\s*$/);
		if (!m) continue;
		for (const name of m[1].match(/`([a-z0-9_]+)`/g) || [])
			docs[name.replace(/`/g, "")] = m[3].trim().replace(/`/g, "");
	}
	return docs;
}

// Base64 of gzip-compressed bytes, as an ArrayBuffer.
async function gunzipB64(b64) {
	const bin = atob(b64);
	const bytes = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
	const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
	return new Response(stream).arrayBuffer();
}

async function decodeGaps(frames) {
	if (!frames.n) return new Float64Array(0);
	const buf = await gunzipB64(frames.gaps_u32le_gz_b64);
	const dv = new DataView(buf);
	const n = buf.byteLength / 4;
	if (n !== frames.n) throw new Error("frame data: " + n + " frames decoded, " + frames.n + " expected");
	const gaps = new Float64Array(n);
	for (let i = 0; i < n; i++) gaps[i] = dv.getUint32(4 * i, true);
	return gaps;
}

function percentile(sorted, p) {
	if (!sorted.length) return NaN;
	const h = (sorted.length - 1) * p, lo = Math.floor(h), hi = Math.ceil(h);
	return sorted[lo] + (sorted[hi] - sorted[lo]) * (h - lo);
}

function tooltipText(s) {
	let t = "t " + fmt(s.t_s, 3) + " s, " + fmt(s.ms, 1) + " ms: " + s.cause +
		(s.sub ? " (" + s.sub + ")" : "") + " " + fmt(100 * s.share, 0) + " %";
	if (s.second) t += ", second " + s.second + " " + fmt(100 * s.second_share, 0) + " %";
	if (s.api) t += "\n" + s.api;
	t += "\n" + s.evidence;
	for (const iv of s.intervals) t += "\n  " + iv;
	if (s.intervals_all > s.intervals.length)
		t += "\n  " + (s.intervals_all - s.intervals.length) + " more intervals";
	return t;
}

function drawPlot(box, run, x, y, view) {
	const markers = run.stalls.filter((s) => s.frame < x.length).map((s) => ({
		x: x[s.frame], y: y[s.frame], stall: s, color: CAUSE_COLORS[s.cause] || "#000",
	}));
	view.markers = markers;
	const shade = (u) => {
		const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
		const band = (a, b, color) => {
			const x0 = u.valToPos(a, "x", true), x1 = u.valToPos(b, "x", true);
			ctx.fillStyle = color;
			ctx.fillRect(Math.min(x0, x1), top, Math.abs(x1 - x0), h);
		};
		ctx.save();
		if (run.warmup_s > 0) band(run.origin_s, run.warmup_end_s, "rgba(128,128,128,0.15)");
		for (const r of run.reloads) band(r[0], r[1], "rgba(255,165,0,0.18)");
		if (run.window) {
			ctx.strokeStyle = "rgba(0,0,160,0.6)";
			ctx.setLineDash([4, 4]);
			for (const t of run.window) {
				const px = u.valToPos(t, "x", true);
				ctx.beginPath();
				ctx.moveTo(px, top);
				ctx.lineTo(px, top + h);
				ctx.stroke();
			}
		}
		ctx.restore();
	};
	const drawMarkers = (u) => {
		const ctx = u.ctx, [xmin, xmax] = [u.scales.x.min, u.scales.x.max];
		ctx.save();
		for (const m of markers) {
			if (m.x < xmin || m.x > xmax) continue;
			const px = u.valToPos(m.x, "x", true), py = u.valToPos(Math.min(m.y, u.scales.y.max), "y", true);
			ctx.beginPath();
			ctx.arc(px, py, (m === view.selected ? 7 : 5) * devicePixelRatio, 0, 2 * Math.PI);
			ctx.fillStyle = m.color;
			ctx.fill();
			ctx.lineWidth = devicePixelRatio;
			ctx.strokeStyle = m === view.selected ? "#000" : "#fff";
			ctx.stroke();
		}
		ctx.restore();
	};
	const tip = el("div", { class: "ss-tip" });
	box.append(tip);
	const nearest = (u, left, top) => {
		let best = null, bd = 10;
		for (const m of markers) {
			const px = u.valToPos(m.x, "x"), py = u.valToPos(Math.min(m.y, u.scales.y.max), "y");
			const d = Math.hypot(px - left, py - top);
			if (d < bd) { bd = d; best = m; }
		}
		return best;
	};
	const opts = {
		width: Math.max(600, box.clientWidth - 8), height: 360,
		title: "frame times",
		cursor: { drag: { x: true, y: false }, points: { show: false } },
		scales: { x: { time: false } },
		axes: [{ label: "s since t0" }, { label: "ms" }],
		series: [{ label: "t", value: (u, v) => fmt(v, 3) },
			{ label: "frame time (ms)", stroke: "#555", width: 1, points: { show: false },
			  // a frame's time spans the gap before its present: a step back
			  paths: uPlot.paths.stepped({ align: -1 }), value: (u, v) => fmt(v, 2) }],
		hooks: {
			drawClear: [shade],
			draw: [drawMarkers],
			setCursor: [(u) => {
				const { left, top } = u.cursor;
				const m = left >= 0 ? nearest(u, left, top) : null;
				view.hovered = m;
				if (!m) { tip.style.display = "none"; return; }
				tip.textContent = tooltipText(m.stall);
				tip.style.display = "block";
				tip.style.left = Math.min(left + u.bbox.left / devicePixelRatio + 16, box.clientWidth - 420) + "px";
				tip.style.top = (top + 40) + "px";
			}],
		},
	};
	const u = new uPlot(opts, [x, y], box);
	view.plot = u;
	u.over.addEventListener("click", () => { if (view.hovered) view.select(view.hovered.stall); });
	// pan by a share of the range, kept inside the run
	const pan = (share) => {
		const { min, max } = u.scales.x, w = max - min, first = x[0], last = x[x.length - 1];
		let lo = min + w * share;
		lo = Math.max(first, Math.min(lo, last - w));
		u.setScale("x", { min: lo, max: lo + w });
	};
	view.pan = pan;
	u.over.addEventListener("wheel", (e) => {
		e.preventDefault();
		if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
			pan(((e.shiftKey ? e.deltaY : 0) + e.deltaX) > 0 ? 0.15 : -0.15);
			return;
		}
		const { min, max } = u.scales.x, at = u.posToVal(u.cursor.left, "x");
		const f = e.deltaY < 0 ? 0.75 : 1 / 0.75;
		const lo = Math.max(x[0], at - (at - min) * f), hi = Math.min(x[x.length - 1], at + (max - at) * f);
		if (hi > lo) u.setScale("x", { min: lo, max: hi });
	}, { passive: false });
	box.tabIndex = 0;
	box.addEventListener("keydown", (e) => {
		if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
			e.preventDefault();
			pan(e.key === "ArrowLeft" ? -0.25 : 0.25);
		}
	});
	return u;
}

// A waker's name without its thread number: "llvmpipe-1" is "llvmpipe-"
// and 1, "migration/0" "migration/" and 0.
function wakerParts(comm) {
	const m = /^(.*[^0-9])([0-9]+)$/.exec(comm);
	return m ? [m[1], m[2]] : [comm, null];
}

// Exact intervals (html.c's "iv") grouped by kind and waker, the most
// milliseconds first: "futex x7, 31.6 ms, woken by llvmpipe-0/1".
function groupIntervals(iv) {
	const groups = new Map();
	for (const v of iv || []) {
		const [base, num] = v.waker ? wakerParts(v.waker) : [null, null];
		const key = v.kind + "\n" + base;
		let g = groups.get(key);
		if (!g) groups.set(key, g = { kind: v.kind, waker: base, nums: [], n: 0, ms: 0, sys: new Set() });
		g.n++;
		g.ms += v.ms;
		if (v.sys) g.sys.add(v.sys + (v.file ? "(" + v.file + ")" : ""));
		if (num !== null && !g.nums.includes(num)) g.nums.push(num);
	}
	return [...groups.values()].sort((a, b) => b.ms - a.ms).map((g) => {
		g.nums.sort((a, b) => a - b);
		const who = g.waker === null ? "" : ", woken by " + g.waker + g.nums.join("/");
		g.text = g.kind + (g.n > 1 ? " x" + g.n : "") + ", " + fmt(g.ms, 1) + " ms" +
			(g.sys.size === 1 ? " in " + [...g.sys][0] : "") + who;
		return g;
	});
}

// The stall's evidence: its first clause (the state, syscall and file; the
// counter that bears on the cause; the longest exact interval), and the
// rest (every clause, the intervals grouped, each interval in words) opened
// by a click on "more".
function evidenceCell(s) {
	const cl = s.ev_clauses || [s.evidence];
	const iv = s.iv || [];
	const longest = iv.reduce((a, v) => (!a || v.ms > a.ms ? v : a), null);
	const head = [cl[0]];
	if (s.ev_top > 0) head.push(cl[s.ev_top]);
	if (longest) head.push("longest " + longest.kind + " " + fmt(longest.ms, 1) + " ms" +
		(longest.waker ? ", woken by " + longest.waker : ""));
	if (s.warm) head.push("in the warm-up");
	if (!s.play) head.push("in a reload segment");
	const rest = el("div", { class: "ss-ev-rest", hidden: "" });
	const others = cl.filter((c, i) => i > 0 && i !== s.ev_top);
	for (const c of others) rest.append(el("div", { class: "ss-ev-clause", text: c }));
	const groups = groupIntervals(iv);
	if (groups.length) {
		rest.append(el("div", { class: "ss-ev-sub", text: "exact intervals, by kind and waker:" }));
		for (const g of groups) rest.append(el("div", { class: "ss-ev-group", text: g.text }));
	}
	for (const t of s.intervals) rest.append(el("div", { class: "ss-ev-iv", text: t }));
	const more = s.intervals_all - Math.max(iv.length, s.intervals.length);
	if (more > 0) rest.append(el("div", { class: "ss-ev-iv", text: more + " more intervals" }));
	const td = el("td", { class: "ss-ev" }, el("span", { class: "ss-ev-head", text: head.join("; ") }));
	if (rest.childNodes.length) {
		const btn = el("button", { class: "ss-ev-more", type: "button", text: "more", title: "the rest of the evidence" });
		btn.addEventListener("click", (e) => {
			e.stopPropagation();
			rest.hidden = !rest.hidden;
			btn.textContent = rest.hidden ? "more" : "less";
		});
		td.append(" ", btn, rest);
	}
	return td;
}
window.ssGroupIntervals = groupIntervals;

function stallTable(run, view) {
	// the API call column where a stall sat in a timed call ("in glLinkProgram 281.0 ms")
	const api = run.stalls.some((s) => s.api);
	const cols = [["t_s", "t (s)"], ["ms", "ms"], ["cause", "cause"], ["share", "share %"],
		["second", "second"]].concat(api ? [["api", "API call"]] : [], [["evidence", "evidence"]]);
	const tbody = el("tbody");
	const rows = run.stalls.map((s) => {
		const tr = el("tr", { class: "ss-stall" + (s.warm ? " ss-warm" : "") },
			el("td", { text: fmt(s.t_s, 3) }), el("td", { text: fmt(s.ms, 1) }),
			el("td", {}, el("span", { class: "ss-dot", style: "background:" + (CAUSE_COLORS[s.cause] || "#000") }),
				s.cause + (s.sub ? " (" + s.sub + ")" : "")),
			el("td", { text: fmt(100 * s.share, 0) }),
			el("td", { text: s.second ? s.second + " " + fmt(100 * s.second_share, 0) + " %" : "-" }),
			api ? el("td", { class: "ss-api", text: s.api || "-" }) : null,
			evidenceCell(s));
		tr.addEventListener("click", () => view.select(s, true));
		s._row = tr;
		return tr;
	});
	rows.forEach((r) => tbody.append(r));
	let sortKey = "t_s", dir = 1;
	const thead = el("thead", {}, el("tr", {}, ...cols.map(([k, name]) => el("th", {
		text: name, title: "sort by " + name,
		onclick: () => {
			dir = sortKey === k ? -dir : 1;
			sortKey = k;
			const sorted = run.stalls.slice().sort((a, b) => {
				const va = a[k], vb = b[k];
				return (va === vb ? 0 : va === null ? 1 : vb === null ? -1 : va < vb ? -1 : 1) * dir;
			});
			sorted.forEach((s) => tbody.append(s._row));
		},
	}))));
	return el("table", { class: "ss-table ss-stalls" }, thead, tbody);
}

// Stall seconds by cause: the window's and the warm-up's, side by side, so
// that stalls drawn in the warm-up are counted somewhere on the page.
function causeBars(run) {
	const cc = run.cause_cols;
	const box = el("div", { class: "ss-bars" }, el("h3", { text: "stall seconds by cause (the window and the warm-up)" }));
	if (!run.has_samples) {
		box.append(el("p", { text: "no samples: causes need a run directory's record" }));
		return box;
	}
	const sum = (v) => v ? v.reduce((a, x) => a + (x || 0), 0) : null;
	const parts = [["window", cc.window, run.window ? null : "the window is empty (see the top)"],
		["warm-up", cc.warm, run.warm_none || (cc.warm ? null : "unknown")]];
	const totals = parts.map(([, v]) => sum(v));
	const top = Math.max(0, ...parts.flatMap(([, v, why]) => why || !v ? [] : v.map((x) => x || 0)));
	const head = el("tr", {}, el("th", { text: "cause" }), ...parts.map(([name, , why], i) =>
		el("th", { text: name + (why ? "" : " (" + fmt(totals[i], 3) + " s)") })));
	const tb = el("tbody");
	cc.names.forEach((c, k) => {
		tb.append(el("tr", { class: "ss-bar-row", "data-cause": c }, el("td", { class: "ss-bar-name", text: c }),
			...parts.map(([, v, why], i) => {
				const x = v ? v[k] : null;
				if (why || x === null) return el("td", { class: "ss-bar-cell", text: "-", title: why || "unknown" });
				return el("td", { class: "ss-bar-cell" }, el("span", { class: "ss-bar-fill", style: "width:" +
					(top > 0 ? 160 * x / top : 0) + "px;background:" +
					(CAUSE_COLORS[c === "other" ? "fault" : c]) }), fmt(x, 3) + " s");
			})));
	});
	box.append(el("table", { class: "ss-table ss-bars-table" }, el("thead", {}, head), tb));
	if (parts.every(([, v, why], i) => why || !(totals[i] > 0)))
		box.append(el("p", { class: "ss-help", text: parts.map(([name, , why], i) => name + ": " +
			(why || "no stall seconds")).join("; ") }));
	return box;
}

function distribution(box, y) {
	if (y.length < 2) return;
	const sorted = Float64Array.from(y).sort();
	const top = Math.min(Math.max(percentile(sorted, 0.999) * 1.2, 20), 2000);
	const nb = 100, w = top / nb, counts = new Float64Array(nb), mids = new Float64Array(nb);
	for (let i = 0; i < nb; i++) mids[i] = (i + 0.5) * w;
	for (const v of y) counts[Math.min(nb - 1, Math.floor(v / w))]++;
	const hist = el("div", { class: "ss-half" });
	const pct = el("div", { class: "ss-half" });
	box.append(hist, pct);
	new uPlot({ width: 560, height: 240, title: "frame-time histogram", scales: { x: { time: false } },
		axes: [{ label: "ms" }, { label: "frames" }],
		series: [{}, { label: "frames", fill: "rgba(80,80,200,0.4)", stroke: "#449",
			paths: uPlot.paths.bars({ size: [1, Infinity] }), points: { show: false } }] },
		[mids, counts], hist);
	const ps = [], vs = [];
	for (let i = 0; i <= 200; i++) {
		const p = 1 - Math.pow(10, -3 * i / 200);	// 0 .. 99.9 %, denser at the top
		ps.push(100 * p);
		vs.push(percentile(sorted, p));
	}
	new uPlot({ width: 560, height: 240, title: "percentile curve", scales: { x: { time: false } },
		axes: [{ label: "percentile" }, { label: "ms" }],
		series: [{}, { label: "ms", stroke: "#a33", points: { show: false } }] }, [ps, vs], pct);
}

// The stalls' stacks (html_stacks.c's document), one entry per stall.
async function decodeStacks(run) {
	if (!run.stacks) return null;
	const doc = JSON.parse(new TextDecoder().decode(await gunzipB64(run.stacks.json_gz_b64)));
	if (doc.stalls.length !== run.stalls.length)
		throw new Error("stacks: " + doc.stalls.length + " stalls, " + run.stalls.length + " expected");
	return doc;
}

function causeName(s) {
	return s.cause + (s.sub ? " (" + s.sub + ")" : "");
}

// Adds stall entry E's stacks (NAMES) under PREFIX, each weighted by SCALE
// per sample.
function addStacks(root, prefix, e, names, scale) {
	for (const [n, ...idx] of e.st) flameAdd(root, prefix.concat(idx.map((i) => names[i])), n * scale);
	if (e.more[0]) flameAdd(root, prefix.concat(["[" + e.more[0] + " more stacks]"]), e.more[1] * scale);
}

// One stall's tree: its samples, the stall at the root.
function stallTree(s, e, names) {
	const root = flameNode(causeName(s) + " " + fmt(s.ms, 1) + " ms at " + fmt(s.t_s, 3) + " s");
	if (e && e.n) addStacks(root, [], e, names, 1);
	return root;
}

// Every stall's stacks by cause, weighted by time: a stall of MS spreads MS
// over its samples (as stalls --folded does, there in microseconds).
function causeTree(run, doc) {
	const root = flameNode("all " + run.stalls.length + " stalls");
	run.stalls.forEach((s, i) => {
		const e = doc.stalls[i];
		if (!e) flameAdd(root, [s.cause, "[stacks left out: the page's size]"], s.ms);
		else if (!e.n) flameAdd(root, [s.cause, "[no stack]"], s.ms);
		else addStacks(root, [s.cause], e, doc.names, s.ms / e.n);
	});
	return root;
}

function stacksMissing(run) {
	const ini = Object.fromEntries(run.ini);
	if (!("stacks" in ini)) return "no stacks: the record has none (a frame log, or recorded before stacks existed)";
	if (ini.stacks === "on")
		return "no stacks in this record: the recorder took none (it takes them for frames over 100 ms, docs/WHERE.md)";
	return "no stacks in this record (run.ini: stacks=" + ini.stacks +
		(ini.stacks_reason ? ", " + ini.stacks_reason : "") + ")";
}

// The flame graphs: the selected stall's (a click on a stall in the table
// or on the plot selects it; the longest with stacks at first) and all
// stalls' by cause.
function flameSection(sec, run, doc, view) {
	sec.append(el("h3", { text: "where: the frame thread's stacks in the stalls (flame graphs)" }));
	if (!doc) {
		sec.append(el("p", { class: "ss-flame-none", text: stacksMissing(run) }));
		view.flame = null;
		return;
	}
	sec.append(el("p", { class: "ss-help", text: "the outermost frame at the bottom, its callees above it, " +
		"each as wide as its share; hover a frame for its name, click it to zoom in, click the zoomed frame " +
		"or one below it to zoom out; kernel frames end in _[k]" + (run.stacks.left_out ? "; " +
		run.stacks.left_out + " stalls' stacks left out to keep the page small (stalls --folded has them)" : "") }));
	const title = el("p", { class: "ss-flame-title" });
	const one = el("div", { class: "ss-flamebox" });
	sec.append(title, one);
	sec.append(el("p", { class: "ss-flame-title", text: "all stalls by cause, weighted by stall time " +
		"(a stall's milliseconds spread over its samples)" }));
	const all = el("div", { class: "ss-flamebox" });
	sec.append(all);
	const f = {
		one: new Flame(one, (v) => v + " sample" + (v === 1 ? "" : "s")),
		all: new Flame(all, (v) => fmt(v, 1) + " ms of stall time", CAUSE_COLORS),
		stall: null,
	};
	view.flame = f;
	f.all.set(causeTree(run, doc));
	view.flameSelect = (s) => {
		const e = doc.stalls[run.stalls.indexOf(s)];
		f.stall = s;
		title.textContent = "the stall at " + fmt(s.t_s, 3) + " s: " + causeName(s) + ", " + fmt(s.ms, 1) + " ms" +
			(s.api ? ", " + s.api : "") + "; " + (e === null ? "its stacks were left out (the page's size)" :
				e.n ? e.n + " samples" : "no stack recorded in it");
		f.one.set(stallTree(s, e, doc.names));
	};
	let first = null;
	run.stalls.forEach((s, i) => {
		const e = doc.stalls[i];
		if (e && e.n && (!first || s.ms > first.ms)) first = s;
	});
	if (first || run.stalls.length) view.flameSelect(first || run.stalls[0]);
}

function kvTable(rows, docs) {
	const tb = el("tbody");
	for (const [k, v, unit] of rows)
		tb.append(el("tr", {}, el("td", { text: k, title: (docs && docs[k]) || "" }),
			el("td", { text: typeof v === "number" ? fmt(v, Number.isInteger(v) ? 0 : 3) : v === null ? "-" :
				typeof v === "object" ? JSON.stringify(v) : v }),
			unit !== undefined ? el("td", { text: unit || "" }) : null));
	return el("table", { class: "ss-table ss-kv" }, tb);
}

// Why the run's numbers are missing or left out, each with what to do
// (html.c's reasons: failed, damaged, no frames, an empty window), then the
// other warnings; one line each, above the plot. The notes at the bottom
// say the rest.
function reasonsBox(run) {
	const box = el("div", { class: "ss-reasons" });
	for (const r of run.reasons || [])
		box.append(el("p", { class: "ss-warn ss-reason", "data-kind": r.kind }, "!! " + r.why,
			r.todo ? "; " + r.todo + (r.cmd ? ": " : "") : r.cmd ? ": " : "",
			r.cmd ? el("code", { class: "ss-cmd", text: r.cmd }) : null));
	const warn = [];
	if (run.frames.n && run.frames_note) warn.push(run.frames_note);
	if (run.interfered === 1) warn.push("INTERFERED: " + (run.interference || "the watcher saw interference"));
	if (!run.has_samples) warn.push("no samples: the stalls have no causes (a frame log, or a record without samples)");
	for (const w of warn) box.append(el("p", { class: "ss-warn", text: "!! " + w }));
	return box;
}

// Why metric NAME is "-": the note that names it ("a, b, stall_*_s: why").
function noteFor(notes, name) {
	for (const n of notes || []) {
		const i = n.indexOf(": ");
		if (i < 0) continue;
		const cols = n.slice(0, i).split(", ");
		if (cols.some((c) => c === name || (c.includes("*") &&
			new RegExp("^" + c.replace(/\*/g, "[a-z]+") + "$").test(name)))) return n.slice(i + 2);
	}
	return null;
}

// The metrics: the window's beside the warm-up's (html.c's metrics_warm:
// the same metrics with the warm-up as the window). A warm-up metric
// (stalls_warm, ...) sits in the warm-up column alone; the load's span both.
function metricsTable(run, docs) {
	const warm = run.metrics_warm;
	const tb = el("tbody");
	const cell = (v, d, why) => v === null ? el("td", { class: "ss-m-none", text: "-", title: why || "" })
		: el("td", { text: fmt(v, d) });
	run.metrics.forEach(([name, v, unit], i) => {
		const d = v !== null && Number.isInteger(v) ? 0 : 3;
		let cells;
		if (name.startsWith("load_"))
			cells = [el("td", { colspan: 2, class: "ss-m-load", text: v === null ? "-" : fmt(v, d),
				title: "the load, before the first frame" + (v === null ? ": " + (noteFor(run.notes, name) || "") : "") })];
		else if (name.includes("warm"))
			cells = [el("td", { class: "ss-m-na", title: "a warm-up metric (the warm-up column)" }),
				cell(v, d, noteFor(run.notes, name))];
		else
			cells = [cell(v, d, noteFor(run.notes, name) || (run.window ? "" : "the window is empty (see the top)")),
				warm ? cell(warm[i], warm[i] !== null && Number.isInteger(warm[i]) ? 0 : 3,
					(noteFor(run.notes_warm, name) || "").replace(/the window/g, "the warm-up"))
					: el("td", { class: "ss-m-none", text: "-", title: run.warm_none || "" })];
		tb.append(el("tr", { class: "ss-metric", "data-metric": name },
			el("td", { text: name, title: docs[name] || "" }), ...cells, el("td", { text: unit || "" })));
	});
	return el("table", { class: "ss-table ss-kv ss-metrics" }, el("thead", {}, el("tr", {},
		el("th", { text: "metric" }), el("th", { text: "window" }), el("th", { text: "warm-up" }), el("th", { text: "unit" }))), tb);
}

async function drawRun(app, run, docs, view) {
	const sec = el("section", { class: "ss-run" });
	app.append(sec);
	sec.append(el("h2", { text: (run.program || run.source) + (run.variant ? " [" + run.variant + "]" : "") }),
		el("p", { class: "ss-src", text: run.source + " (" + run.format + "); " + run.frames.n + " frames, " +
			run.samples + " samples" + (run.split ? "; causes by " + (run.split === "exact" ? "exact time" : "samples") : "") }));
	sec.append(reasonsBox(run));
	const gaps = await decodeGaps(run.frames);
	const x = new Float64Array(gaps.length), y = new Float64Array(gaps.length);
	let t = run.frames.n ? run.frames.first_end_s - gaps[0] * 1e-5 : 0;
	for (let i = 0; i < gaps.length; i++) {
		t += gaps[i] * 1e-5;
		x[i] = t;
		y[i] = gaps[i] / 100;
	}
	view.run = run;
	view.nframes = x.length;
	view.select = (s, zoom) => {
		view.selected = (view.markers || []).find((m) => m.stall === s) || null;
		if (view.flameSelect) view.flameSelect(s);
		for (const r of run.stalls) r._row && r._row.classList.toggle("ss-sel", r === s);
		if (s._row) s._row.scrollIntoView({ block: "nearest" });
		if (zoom && view.plot) view.plot.setScale("x", { min: s.t_s - 1, max: s.t_s + s.ms / 1000 + 1 });
		else if (view.plot) view.plot.redraw(false);
	};
	if (x.length > 1) {
		const pbox = el("div", { class: "ss-plot" });
		sec.append(pbox, legend(run));
		drawPlot(pbox, run, x, y, view);
	}
	sec.append(el("h3", { text: run.stalls.length + " stall" + (run.stalls.length === 1 ? "" : "s") +
		" (frames over " + run.stall_ms + " ms)" }));
	if (run.stalls.length) sec.append(stallTable(run, view));
	if (run.stalls.length) flameSection(sec, run, await decodeStacks(run), view);
	sec.append(causeBars(run));
	const dist = el("div", { class: "ss-dist" });
	sec.append(dist);
	distribution(dist, y);
	sec.append(el("h3", { text: "metrics: the window and the warm-up (hover a name for its definition, a - for why)" }),
		metricsTable(run, docs));
	const ini = Object.fromEntries(run.ini);
	const facts = ["program", "argv", "kernel", "cpus", "exact", "exact_reason", "frame_source",
		"frame_thread", "end", "exit_status", "duration_recorded_s"].filter((k) => k in ini)
		.map((k) => [k, ini[k]]);
	for (const [k, v] of run.ini) if (k.startsWith("unreadable.")) facts.push([k, v]);
	if (facts.length) sec.append(el("h3", { text: "the run" }), kvTable(facts));
	if (run.threads && run.threads.length) {
		sec.append(el("h3", { text: "CPU per frame, by thread (the window)" }));
		sec.append(kvTable(run.threads.map((t) => [t.name + " (" + t.tid + ")",
			fmt(t.ms_per_frame, 2) + " ms/frame, " + fmt(t.busy_pct, 1) + " % of a CPU, on cpu" + t.cpu +
			" " + fmt(t.cpu_pct, 0) + " % of the time"])));
	} else if (run.threads_note) {
		sec.append(el("h3", { text: "CPU per frame, by thread" }), el("p", { text: run.threads_note }));
	}
	if (run.recorder) sec.append(el("h3", { text: "the recorder's own cost" }),
		kvTable(Object.entries(run.recorder).map(([k, v]) => [k, v])));
	if (run.late_wakeups.length) {
		sec.append(el("h3", { text: run.late_wakeups.length + " late timer wake-up(s) (record --probe)" }),
			kvTable(run.late_wakeups.map((w) => ["t " + fmt(w.t_s, 3) + " s", "cpu" + w.cpu + " " + fmt(w.late_ms, 1) + " ms late"])));
	}
	if (run.interference) sec.append(el("h3", { text: "interference" }), el("p", { class: run.interfered === 1 ? "ss-warn" : "", text: run.interference }));
	if (run.notes.length) sec.append(el("h3", { text: "notes" }), el("ul", {}, ...run.notes.map((n) => el("li", { text: n }))));
	if (run.ini.length) {
		const d = el("details", {}, el("summary", { text: "run.ini (" + run.ini.length + " keys)" }),
			kvTable(run.ini.map(([k, v]) => [k, v])));
		if (run.ini.some(([k]) => k.startsWith("unreadable."))) d.open = true;
		sec.append(d);
	}
}

function legend(run) {
	const seen = new Set(run.stalls.map((s) => s.cause));
	return el("div", { class: "ss-legend" }, ...CAUSE_ORDER.filter((c) => seen.has(c)).map((c) =>
		el("span", { class: "ss-leg" }, el("span", { class: "ss-dot", style: "background:" + CAUSE_COLORS[c] }), c)),
		el("span", { class: "ss-leg ss-help", text: "drag: zoom; wheel: zoom; shift+wheel or arrow keys: pan; double-click: reset; click a stall: select it" }));
}

// A comparison (html --db): per metric the runs as dots, medians and
// intervals, the change and p ("~": no evidence of a change at 0.05), then
// the sides' percentile curves overlaid.
const SIDE_COLORS = ["#444", "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"];

function dotPlot(c) {
	const all = c.a_values.concat(c.b_values, c.a_interfered, c.b_interfered).filter((v) => v !== null);
	let lo = Math.min(...all), hi = Math.max(...all);
	if (!(hi > lo)) { lo -= 1; hi += 1; }
	const W = 320, H = 34, px = (v) => 6 + (W - 12) * (v - lo) / (hi - lo);
	const ns = "http://www.w3.org/2000/svg";
	const svg = document.createElementNS(ns, "svg");
	svg.setAttribute("width", W);
	svg.setAttribute("height", H);
	const add = (tag, attrs) => {
		const e = document.createElementNS(ns, tag);
		for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
		svg.append(e);
	};
	[[c.a_values, c.a_interfered, c.a_median, c.a_ci, 9, SIDE_COLORS[0]],
	 [c.b_values, c.b_interfered, c.b_median, c.b_ci, 25, SIDE_COLORS[1]]]
		.forEach(([vals, intf, med, ci, y, col]) => {
			if (ci) add("line", { x1: px(ci[0]), x2: px(ci[1]), y1: y, y2: y, stroke: col, "stroke-width": 2, opacity: 0.35 });
			for (const v of vals) if (v !== null) add("circle", { cx: px(v), cy: y, r: 3, fill: col, opacity: 0.7 });
			// interfered runs: hollow, in no median
			for (const v of intf) if (v !== null) add("circle", { cx: px(v), cy: y, r: 3.5, fill: "none", stroke: col, "stroke-dasharray": "2 1" });
			if (med !== null) add("line", { x1: px(med), x2: px(med), y1: y - 6, y2: y + 6, stroke: col, "stroke-width": 2 });
		});
	return svg;
}

function drawCompare(app, data, docs, report) {
	app.append(el("h1", { text: "stallscope compare" }), el("p", { class: "ss-gen", text: data.generator }));
	const base = data.sides[0];
	app.append(el("ul", {}, ...data.sides.map((s, i) => el("li", {},
		el("span", { class: "ss-dot", style: "background:" + SIDE_COLORS[i % SIDE_COLORS.length] }),
		s.spec + ": " + s.runs + " run" + (s.runs === 1 ? "" : "s") +
		(s.interfered ? "; " + s.interfered + " interfered, left out" : "") +
		(s.failed ? "; " + s.failed + " failed" : "")))));
	for (const s of data.sides) {
		if (s.interfered) app.append(el("p", { class: "ss-warn", text: "!! " + s.spec + ": " + s.interfered +
			" interfered run(s) are left out of every median and p below (hollow dots)" }));
		if (s.failures) app.append(el("pre", { class: "ss-warn", text: s.failures }));
	}
	const tbody = el("tbody");
	report.compare = [];
	for (const c of data.comparisons) {
		const sig = c.significant;
		const change = sig === false ? "~" : c.change_pct === null ? "-" : (c.change_pct > 0 ? "+" : "") + fmt(c.change_pct, 1) + " %";
		const ci = (v) => v ? "[" + fmt(v[0], 3) + ", " + fmt(v[1], 3) + "]" : "-";
		const tr = el("tr", { class: "ss-cmp", "data-metric": c.metric, "data-b": c.b },
			el("td", { text: c.metric, title: docs[c.metric] || "" }),
			el("td", { text: c.b }),
			el("td", { text: fmt(c.a_median, 3) + " " + ci(c.a_ci) }),
			el("td", { text: fmt(c.b_median, 3) + " " + ci(c.b_ci) }),
			el("td", { class: "ss-change", text: change }),
			el("td", { class: "ss-p", text: c.p === null ? "-" : c.p.toFixed(3) }),
			el("td", { text: c.n_a + "+" + c.n_b }),
			el("td", {}, dotPlot(c)),
			el("td", { class: "ss-note", text: c.note || "" }));
		tbody.append(tr);
		report.compare.push({ metric: c.metric, b: c.b, a_median: c.a_median, b_median: c.b_median,
			p: c.p, change: change, shown_p: tr.querySelector(".ss-p").textContent });
	}
	app.append(el("h3", { text: "each side against " + base.spec + " (medians with 95 % intervals; '~': no evidence of a change, p >= 0.05)" }),
		el("table", { class: "ss-table ss-cmp-table" }, el("thead", {}, el("tr", {},
			...["metric", "side", base.spec, "side's", "change", "p", "n", "runs", "note"].map((h) => el("th", { text: h })))), tbody));
	if (data.sides.some((s) => s.curve.length)) {
		const box = el("div", { class: "ss-plot" });
		app.append(el("h3", { text: "frame-time percentile curves (every window frame of each side's runs)" }), box);
		const series = [{ label: "percentile", value: (u, v) => fmt(v, 3) }];
		const cols = [data.percentiles];
		data.sides.forEach((s, i) => {
			series.push({ label: s.spec, stroke: SIDE_COLORS[i % SIDE_COLORS.length], points: { show: false } });
			cols.push(s.curve.length ? s.curve : data.percentiles.map(() => null));
		});
		report.curves = new uPlot({ width: Math.max(600, box.clientWidth - 8), height: 320,
			scales: { x: { time: false } }, axes: [{ label: "percentile" }, { label: "ms" }], series }, cols, box);
		if (data.curve_runs_unread)
			app.append(el("p", { class: "ss-warn", text: "!! " + data.curve_runs_unread + " run(s) could not be read again for the curves" }));
	}
}

async function main() {
	const app = document.getElementById("ss-app");
	const report = { runs: [], errors: [], ready: false };
	window.ssReport = report;
	try {
		const data = JSON.parse(document.getElementById("ss-data").textContent);
		const docs = metricDocs();
		app.textContent = "";
		if (data.kind === "compare") {
			drawCompare(app, data, docs, report);
			return;
		}
		app.append(el("h1", { text: "stallscope" }), el("p", { class: "ss-gen", text: data.generator }));
		if (!data.runs.length) app.append(el("p", { class: "ss-warn", text: "!! no runs in this page" }));
		for (const run of data.runs) {
			const view = {};
			report.runs.push(view);
			await drawRun(app, run, docs, view);
		}
	} catch (e) {
		report.errors.push(String(e));
		app.append(el("p", { class: "ss-warn", text: "!! the page could not be drawn: " + e }));
		throw e;
	} finally {
		report.ready = true;
	}
}

main();
