// SPDX-License-Identifier: MIT
// history.js: draws `stallscope html --history`'s page from its data
// (src/cmd/html_history.c): per metric a uPlot plot over the builds, each
// rig its own series: the builds' medians joined, their intervals as
// whiskers, every run as a dot, the change points as dashed vertical marks
// between the builds either side (hover: the builds, the change, p, the
// causes that changed); clicking a build lists its runs with their run
// pages. window.ssHistory exposes what was drawn (tests/e2e/history.sh).
"use strict";

const RIG_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
	"#7f7f7f", "#bcbd22", "#d62728"];
const MARK_PX = 6;	// how near a mark the pointer must be to show it

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
	if (typeof v !== "number") return String(v);
	if (d !== undefined) return v.toFixed(d);
	return Math.abs(v) >= 1000 || v === Math.round(v) ? String(Math.round(v * 1000) / 1000)
		: v.toPrecision(4).replace(/\.?0+$/, "");
}

function rigColor(r) { return RIG_COLORS[r % RIG_COLORS.length]; }

// history's words for a change: "+12.0%", "up from 0", "-"
function changeText(c) {
	if (c.change_pct !== null) return (c.change_pct >= 0 ? "+" : "") + c.change_pct.toFixed(1) + "%";
	if (c.median_after !== c.median_before)
		return (c.median_after > c.median_before ? "up" : "down") + " from 0";
	return "-";
}

// the stall causes whose seconds a run moved by 0.5 ms or more
function causesText(c) {
	const out = [];
	for (const [name, b, a] of c.causes) {
		if (b === null && a === null) continue;
		if (Math.abs((a === null ? 0 : a) - (b === null ? 0 : b)) < 0.0005) continue;
		out.push(name + " " + fmt(b, 3) + " -> " + fmt(a, 3) + " s");
	}
	return out.length ? "stall seconds a run by cause: " + out.join(", ") : "";
}

function cpText(D, s, c) {
	const t = D.builds[c.build_before] + " -> " + D.builds[c.build_after] + ": " +
		fmt(c.median_before) + " -> " + fmt(c.median_after) + " (" + changeText(c) + "), p " +
		fmt(c.p, 3) + (c.worse ? ", WORSE" : "");
	const why = causesText(c);
	return t + (why ? "; " + why : "");
}

// A run's page: a link when its directory holds one, else how to make it.
function runPage(D, i) {
	const page = D.runs.page[i], dir = D.runs.dir[i];
	if (typeof page === "string") {
		const href = "file://" + encodeURI(page).replace(/#/g, "%23").replace(/\?/g, "%3F");
		return el("a", { href: href, class: "ss-runpage", text: "run page" });
	}
	if (page === 1)
		return el("span", { class: "ss-help", text: "no page yet: stallscope html " + dir });
	return el("span", { class: "ss-help", text: "run directory not here (" + dir + ")" });
}

function runsOf(D, b) {
	const out = [];
	for (let i = 0; i < D.runs.id.length; i++) if (D.runs.build[i] === b) out.push(i);
	return out;
}

function runTable(D, mi, b, box) {
	const metric = D.metrics[mi], rows = runsOf(D, b);
	box.replaceChildren(el("p", {}, el("b", { text: "build " + D.builds[b] }),
		" (" + rows.length + " run" + (rows.length === 1 ? "" : "s") + ")"));
	if (!rows.length) return;
	const tbody = el("tbody");
	for (const i of rows)
		tbody.append(el("tr", { class: "ss-run" },
			el("td", {}, el("span", { class: "ss-dot", style: "background:" + rigColor(D.runs.rig[i]) }),
				D.rigs[D.runs.rig[i]]),
			el("td", { text: String(D.runs.id[i]) }), el("td", { text: D.runs.started[i] || "-" }),
			el("td", { text: fmt(metric.values[i]) }),
			el("td", { class: "ss-mono" }, runPage(D, i))));
	box.append(el("table", { class: "ss-table" }, el("thead", {}, el("tr", {},
		el("th", { text: "rig" }), el("th", { text: "run" }), el("th", { text: "started" }),
		el("th", { text: metric.name + (metric.unit ? " (" + metric.unit + ")" : "") }),
		el("th", { text: "page" }))), tbody));
}

// One metric's plot: x the build's index, one median series a rig.
function metricPlot(D, mi, box, tip, runsBox, width) {
	const nb = D.builds.length, metric = D.metrics[mi];
	const series = D.series.filter((s) => s.metric === mi);
	const x = new Float64Array(nb);
	for (let b = 0; b < nb; b++) x[b] = b;
	const data = [x];
	let ymin = Infinity, ymax = -Infinity;
	for (const s of series) {
		const y = new Array(nb).fill(null);
		s.b.forEach((b, k) => { y[b] = s.med[k]; });
		data.push(y);
		for (let k = 0; k < s.b.length; k++)
			for (const v of [s.lo[k], s.hi[k]])
				if (v !== null) { ymin = Math.min(ymin, v); ymax = Math.max(ymax, v); }
	}
	// the runs by rig, each at its build, spread a little inside it
	const dots = [];
	const seen = new Map();
	for (let i = 0; i < metric.values.length; i++) {
		const v = metric.values[i];
		if (v === null) continue;
		const key = D.runs.build[i] * 64 + D.runs.rig[i];
		const k = seen.get(key) || 0;
		seen.set(key, k + 1);
		dots.push([D.runs.build[i] + ((k % 7) - 3) * 0.04 + ((D.runs.rig[i] % 3) - 1) * 0.013, v, D.runs.rig[i]]);
		ymin = Math.min(ymin, v);
		ymax = Math.max(ymax, v);
	}
	if (!(ymax >= ymin)) { ymin = 0; ymax = 1; }
	const pad = (ymax - ymin) * 0.06 || Math.abs(ymax) * 0.1 || 1;
	const marks = [];
	for (const s of series)
		for (const c of s.cps)
			marks.push({ rig: s.rig, series: s, cp: c, x: (c.build_before + c.build_after) / 2,
				build_before: D.builds[c.build_before], build_after: D.builds[c.build_after],
				text: "change on rig " + D.rigs[s.rig] + ": " + cpText(D, s, c) });
	const view = { metric: metric.name, marks: marks, dots: dots.length, hovered: null };
	const opts = {
		width: width, height: 300,
		cursor: { drag: { x: true, y: false }, points: { show: false } },
		scales: { x: { time: false, range: (u, lo, hi) => [Math.max(-0.5, lo), Math.min(nb - 0.5, hi)] },
			  y: { range: () => [ymin - pad, ymax + pad] } },
		legend: { show: false },
		axes: [{ label: "build", space: 60,
			  splits: (u, ai, lo, hi) => {
				const a = Math.max(0, Math.ceil(lo)), z = Math.min(nb - 1, Math.floor(hi));
				const step = Math.max(1, Math.ceil((z - a + 1) / Math.max(1, u.bbox.width / devicePixelRatio / 70)));
				const out = [];
				for (let b = a; b <= z; b += step) out.push(b);
				return out;
			  },
			  values: (u, vals) => vals.map((b) => D.builds[b] === undefined ? "" : D.builds[b]) },
			{ label: metric.name + (metric.unit ? " (" + metric.unit + ")" : ""), size: 70 }],
		series: [{}].concat(series.map((s) => ({ label: D.rigs[s.rig], stroke: rigColor(s.rig), width: 1.5,
			spanGaps: true, points: { show: nb <= 200, size: 5 } }))),
		hooks: {
			draw: [(u) => {
				const ctx = u.ctx, r = devicePixelRatio;
				ctx.save();
				ctx.beginPath();
				ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
				ctx.clip();
				// the intervals, as whiskers
				for (const s of series) {
					ctx.strokeStyle = rigColor(s.rig);
					ctx.lineWidth = r;
					ctx.beginPath();
					for (let k = 0; k < s.b.length; k++) {
						if (s.lo[k] === null || s.hi[k] === null) continue;
						const px = u.valToPos(s.b[k], "x", true);
						ctx.moveTo(px, u.valToPos(s.lo[k], "y", true));
						ctx.lineTo(px, u.valToPos(s.hi[k], "y", true));
					}
					ctx.stroke();
				}
				// every run
				for (const [dx, v, rig] of dots) {
					ctx.fillStyle = rigColor(rig) + "80";
					ctx.fillRect(u.valToPos(dx, "x", true) - 1.5 * r, u.valToPos(v, "y", true) - 1.5 * r, 3 * r, 3 * r);
				}
				// the change points
				ctx.setLineDash([6 * r, 4 * r]);
				for (const m of marks) {
					const px = u.valToPos(m.x, "x", true);
					ctx.strokeStyle = m.cp.worse ? "#c00" : rigColor(m.rig);
					ctx.lineWidth = 2 * r;
					ctx.beginPath();
					ctx.moveTo(px, u.bbox.top);
					ctx.lineTo(px, u.bbox.top + u.bbox.height);
					ctx.stroke();
				}
				ctx.restore();
			}],
			setCursor: [(u) => {
				const { left, top } = u.cursor;
				view.hovered = null;
				if (left === undefined || left < 0) { tip.style.display = "none"; return; }
				// every mark under the pointer (the rigs' marks may coincide)
				const near = marks.filter((m) => Math.abs(u.valToPos(m.x, "x") - left) <= MARK_PX);
				let text;
				if (near.length) {
					view.hovered = near;
					text = near.map((m) => m.text).join("\n");
				} else {
					const b = Math.round(u.posToVal(left, "x"));
					if (b < 0 || b >= nb) { tip.style.display = "none"; return; }
					text = "build " + D.builds[b] + " (click: its runs)";
					for (const s of series) {
						const k = s.b.indexOf(b);
						if (k >= 0)
							text += "\n" + D.rigs[s.rig] + ": median " + fmt(s.med[k]) + ", " +
								(s.ci[k] ? "95% CI " : "range ") + fmt(s.lo[k]) + ".." +
								fmt(s.hi[k]) + ", " + s.n[k] + " run" + (s.n[k] === 1 ? "" : "s");
					}
				}
				tip.textContent = text;
				tip.style.display = "block";
				tip.style.left = Math.min(left + u.bbox.left / devicePixelRatio + 16, width - 470) + "px";
				tip.style.top = (top + 30) + "px";
			}],
		},
	};
	const u = new uPlot(opts, data, box);
	view.plot = u;
	// half a build of room either side, so the first and last builds' dots show
	const whole = () => u.setScale("x", { min: -0.5, max: nb - 0.5 });
	whole();
	// a click (not a drag) lists the build's runs
	let down = null;
	u.over.addEventListener("mousedown", (e) => { down = [e.clientX, e.clientY]; });
	u.over.addEventListener("mouseup", (e) => {
		if (!down || Math.abs(e.clientX - down[0]) > 3 || Math.abs(e.clientY - down[1]) > 3) return;
		const b = Math.round(u.posToVal(e.clientX - u.over.getBoundingClientRect().left, "x"));
		if (b >= 0 && b < nb) {
			view.selected = b;
			runTable(D, mi, b, runsBox);
		}
	});
	u.over.addEventListener("dblclick", whole);
	return view;
}

function render(D) {
	const app = document.getElementById("ss-app");
	const nb = D.builds.length, nr = D.runs.id.length;
	const width = Math.min(1350, document.body.clientWidth - 10);
	const lo = D.left_out, m = D.method;
	const out = [el("h1", { text: "stallscope history: " + D.name + ":" + D.variant })];
	out.push(el("p", { class: "ss-gen", text: D.generator + "; " + D.db + "; " + nr + " run" +
		(nr === 1 ? "" : "s") + " of " + nb + " build" + (nb === 1 ? "" : "s") + " on " +
		D.rigs.length + " rig" + (D.rigs.length === 1 ? "" : "s") +
		(D.rig_only ? " (--rig " + D.rig_only + ")" : "") + (D.since ? " since " + D.since : "") }));
	out.push(el("p", { class: "ss-gen", text: "change points: " + m.name + ", alpha " + m.alpha + ", " +
		m.permutations + " permutations, min change " + m.min_change_pct + " %, min segment " +
		m.min_segment + " builds, seed " + m.seed + " (as stallscope history)" }));
	if (lo.no_build || lo.interfered || lo.failed || lo.not_in_order)
		out.push(el("p", { class: "ss-gen", text: "left out: " + lo.no_build + " without a build, " +
			lo.interfered + " interfered, " + lo.failed + " failed, " + lo.not_in_order +
			" of builds not in --order" }));
	out.push(el("p", { class: "ss-legend" }, ...D.rigs.map((r, i) => el("span", { class: "ss-leg" },
		el("span", { class: "ss-dot", style: "background:" + rigColor(i) }), "rig " + r)),
		el("span", { class: "ss-help", text: "lines: the builds' medians; whiskers: their intervals " +
			"(95% CI from 6 runs, else min..max); dots: the runs; dashed: change points (red: worse). " +
			"Drag to zoom, double-click to reset, click a build for its runs." })));
	app.replaceChildren(...out);
	const views = [];
	D.metrics.forEach((metric, mi) => {
		const series = D.series.filter((s) => s.metric === mi);
		const sec = el("section", { class: "ss-metric", "data-metric": metric.name });
		sec.append(el("h2", { text: metric.name + (metric.unit ? " (" + metric.unit + ")" : "") +
			(metric.worse ? ": " + metric.worse + " is worse" : ": neither way is worse") }));
		const list = el("ul", { class: "ss-cps" });
		for (const s of series) {
			const rig = "rig " + D.rigs[s.rig] + ": ";
			if (s.too_few)
				list.append(el("li", { class: "ss-none", text: rig + "no change points: " + s.b.length +
					" build(s), a split needs at least " + 2 * m.min_segment + " (--min-segment " +
					m.min_segment + " a side)" }));
			else if (!s.cps.length)
				list.append(el("li", { class: "ss-none", text: rig + "no change points (alpha " + m.alpha + ")" }));
			for (const c of s.cps)
				list.append(el("li", { class: "ss-cp" + (c.worse ? " ss-worse" : ""),
					text: rig + "change " + cpText(D, s, c) }));
		}
		if (!series.length)
			list.append(el("li", { class: "ss-none", text: "no run has a value of " + metric.name }));
		const box = el("div", { class: "ss-plot" }), tip = el("div", { class: "ss-tip" });
		const runsBox = el("div", { class: "ss-runs" });
		sec.append(list, box, runsBox);
		app.append(sec);
		const view = series.length ? metricPlot(D, mi, box, tip, runsBox, width) : { metric: metric.name, marks: [] };
		box.append(tip);
		views.push(view);
	});
	return views;
}

// the times (ms since navigation) the script began, parsed its data, drew
window.ssHistory = { ready: false, views: [], error: null, t_script: performance.now() };
try {
	const D = JSON.parse(document.getElementById("ss-data").textContent);
	if (D.kind !== "history") throw new Error("not a history page's data: " + D.kind);
	window.ssHistory.t_parsed = performance.now();
	window.ssHistory.data = D;
	window.ssHistory.views = render(D);
	window.ssHistory.t_drawn = performance.now();
	window.ssHistory.ready = true;
} catch (e) {
	window.ssHistory.error = String(e);
	document.getElementById("ss-app").replaceChildren(el("p", { class: "ss-warn", text: "the page could not be drawn: " + e }));
	throw e;
}
