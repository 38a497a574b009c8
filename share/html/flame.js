// SPDX-License-Identifier: MIT
// flame.js: a flame graph on a canvas, for `stallscope html`'s page
// (page.js feeds it the stalls' stacks; docs/HTML.md). A tree of frames,
// the root at the bottom and each frame's callees above it, as wide as its
// share of the root's weight, the heaviest callee leftmost. Hover a frame
// for its name and weight; click one to zoom into it (it then fills the
// width, its callers stay below it); click the root, or a caller below the
// zoomed frame, to zoom back out. What is drawn is kept in .rects (the tests
// read it).
"use strict";

const FLAME_ROW = 18;

// A tree node: its name, its weight, its callees by name.
function flameNode(name) {
	return { name: name, value: 0, kids: new Map(), parent: null };
}

// Adds WEIGHT along NAMES (outermost first) under NODE.
function flameAdd(node, names, weight) {
	node.value += weight;
	for (const n of names) {
		let k = node.kids.get(n);
		if (!k) {
			k = flameNode(n);
			k.parent = node;
			node.kids.set(n, k);
		}
		k.value += weight;
		node = k;
	}
}

function flameDepth(node) {
	let d = 0;
	for (const k of node.kids.values()) d = Math.max(d, flameDepth(k));
	return d + 1;
}

// A frame's colour: kernel frames ("_[k]") orange, the marks that are not
// frames ("[no stack]", "[12 more stacks]") grey, the rest a warm hue from
// the name, so a function keeps its colour between the two graphs.
function flameColor(name, colors) {
	if (colors && colors[name]) return colors[name];
	if (name.endsWith("_[k]")) return "hsl(28, 80%, 62%)";
	if (name.startsWith("[")) return "#c8c8c8";
	let h = 0;
	for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
	return "hsl(" + (h % 50) + ", " + (60 + (h >> 8) % 25) + "%, " + (58 + (h >> 16) % 12) + "%)";
}

class Flame {
	// BOX: the element the canvas and its tooltip go into. FORMAT(v): a
	// weight in words ("12 samples", "31.0 ms"). COLORS: fixed colours by
	// name (the causes).
	constructor(box, format, colors) {
		this.box = box;
		this.format = format;
		this.colors = colors || {};
		this.canvas = document.createElement("canvas");
		this.canvas.className = "ss-flame";
		this.tip = document.createElement("div");
		this.tip.className = "ss-tip";
		box.append(this.canvas, this.tip);
		this.root = null;
		this.focus = null;
		this.rects = [];
		this.canvas.addEventListener("mousemove", (e) => this.hover(e));
		this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
		this.canvas.addEventListener("click", (e) => {
			const r = this.at(e);
			if (!r) return;
			this.zoom(r.node === this.focus && r.node.parent ? r.node.parent : r.node);
			this.hover(e);
		});
	}

	set(root) {
		this.root = root;
		this.focus = root;
		this.draw();
	}

	zoom(node) {
		this.focus = node;
		this.draw();
	}

	draw() {
		const root = this.root, dpr = window.devicePixelRatio || 1;
		const W = Math.max(300, this.box.clientWidth - 4);
		this.rects = [];
		if (!root || !(root.value > 0)) {
			this.canvas.width = this.canvas.height = 0;
			return;
		}
		// the focus's callers, root first, each the whole width
		const path = [];
		for (let n = this.focus; n; n = n.parent) path.unshift(n);
		const rows = path.length - 1 + flameDepth(this.focus);
		const H = rows * FLAME_ROW;
		this.canvas.width = W * dpr;
		this.canvas.height = H * dpr;
		this.canvas.style.width = W + "px";
		this.canvas.style.height = H + "px";
		const add = (node, x, w, level) => {
			this.rects.push({ node: node, name: node.name, x: x, y: H - (level + 1) * FLAME_ROW,
				w: w, h: FLAME_ROW, dim: level < path.length - 1 });
		};
		path.slice(0, -1).forEach((n, i) => add(n, 0, W, i));
		const lay = (node, x, w, level) => {
			add(node, x, w, level);
			const kids = [...node.kids.values()].sort((a, b) => b.value - a.value);
			let at = x;
			for (const k of kids) {
				const kw = w * k.value / node.value;
				if (kw >= 0.5) lay(k, at, kw, level + 1);
				at += kw;
			}
		};
		lay(this.focus, 0, W, path.length - 1);
		const ctx = this.canvas.getContext("2d");
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, W, H);
		ctx.font = "11px system-ui, sans-serif";
		ctx.textBaseline = "middle";
		for (const r of this.rects) {
			ctx.fillStyle = r.dim ? "#e4e4e4" : flameColor(r.name, this.colors);
			ctx.fillRect(r.x, r.y, Math.max(r.w - 1, 0.5), r.h - 1);
			if (r.w < 24) continue;
			let label = r.name;
			const room = r.w - 6;
			if (ctx.measureText(label).width > room) {
				let n = Math.floor(label.length * room / ctx.measureText(label).width) - 1;
				while (n > 1 && ctx.measureText(label.slice(0, n) + "..").width > room) n--;
				label = n > 1 ? label.slice(0, n) + ".." : "";
			}
			ctx.fillStyle = "#222";
			ctx.fillText(label, r.x + 3, r.y + r.h / 2);
		}
	}

	at(e) {
		const b = this.canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		return this.rects.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) || null;
	}

	hover(e) {
		const r = this.at(e);
		if (!r) {
			this.tip.style.display = "none";
			return;
		}
		const n = r.node;
		let self = n.value;
		for (const k of n.kids.values()) self -= k.value;
		let t = n.name + "\n" + this.format(n.value) + ", " + (100 * n.value / this.root.value).toFixed(1) + " % of all";
		if (this.focus !== this.root && this.focus.value > 0)
			t += ", " + (100 * n.value / this.focus.value).toFixed(1) + " % of the zoomed frame";
		if (n.kids.size && self > 0) t += "\nitself (not in a callee): " + this.format(self);
		t += "\n" + (n === this.focus && n.parent ? "click: zoom out" : "click: zoom in");
		this.tip.textContent = t;
		this.tip.style.display = "block";
		const bb = this.box.getBoundingClientRect();
		this.tip.style.left = Math.min(e.clientX - bb.left + 14, bb.width - 420) + "px";
		this.tip.style.top = (e.clientY - bb.top + 14) + "px";
	}
}
