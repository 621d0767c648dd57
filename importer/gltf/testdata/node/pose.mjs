// Posed positions of a glTF file at sampled times, read with
// glTF-Transform (npm @gltf-transform/core, pinned) as an independent
// reader: usage `node pose.mjs FILE ANIMATION T...` (ANIMATION -1 = rest
// pose). Prints one JSON object: {"times": [{"t", "submeshes": [[x, y, z,
// ...], ...]}]}, one entry per triangle primitive of every mesh node in
// scene traversal order (depth first, children in order), every vertex of
// the primitive posed as glTF 2.0 says: morph targets weighted (the
// animation's weights, else the node's, else the mesh's), then the skin
// (sum of weight x joint world x inverse bind) or the node's world
// transform. Samplers: STEP, LINEAR (slerp for rotations) and CUBICSPLINE
// (glTF Appendix C), times clamped to the keys.
import { NodeIO } from '@gltf-transform/core';

const [file, animArg, ...timeArgs] = process.argv.slice(2);
const doc = await new NodeIO().read(file);
const root = doc.getRoot();
const anim = Number(animArg) >= 0 ? root.listAnimations()[Number(animArg)] : null;

function mul(a, b) {
	const m = new Array(16).fill(0);
	for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) m[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
	return m;
}
function trs(t, q, s) {
	let [x, y, z, w] = q;
	const n = Math.hypot(x, y, z, w) || 1;
	x /= n; y /= n; z /= n; w /= n;
	return [
		(1 - 2 * (y * y + z * z)) * s[0], 2 * (x * y + z * w) * s[0], 2 * (x * z - y * w) * s[0], 0,
		2 * (x * y - z * w) * s[1], (1 - 2 * (x * x + z * z)) * s[1], 2 * (y * z + x * w) * s[1], 0,
		2 * (x * z + y * w) * s[2], 2 * (y * z - x * w) * s[2], (1 - 2 * (x * x + y * y)) * s[2], 0,
		t[0], t[1], t[2], 1,
	];
}
function point(m, p) {
	return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
}
function elements(acc) {
	const out = [];
	for (let i = 0; i < acc.getCount(); i++) out.push(acc.getElement(i, []));
	return out;
}
function slerp(a, b, s) {
	let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
	if (d < 0) { b = b.map((v) => -v); d = -d; }
	let ka = 1 - s, kb = s;
	if (d < 1 - 1e-9) {
		const th = Math.acos(Math.min(d, 1)), sn = Math.sin(th);
		ka = Math.sin((1 - s) * th) / sn; kb = Math.sin(s * th) / sn;
	}
	const o = a.map((v, i) => ka * v + kb * b[i]);
	const l = Math.hypot(...o);
	return o.map((v) => v / l);
}
// sample a channel: values per key are `width` wide (x3 for cubic)
function sample(sampler, path, width, t) {
	const times = Array.from(sampler.getInput().getArray());
	const out = elements(sampler.getOutput()).flat();
	const interp = sampler.getInterpolation();
	const cubic = interp === 'CUBICSPLINE';
	const value = (k) => (cubic ? out.slice((3 * k + 1) * width, (3 * k + 2) * width) : out.slice(k * width, (k + 1) * width));
	const n = times.length;
	if (t <= times[0]) return value(0);
	if (t >= times[n - 1]) return value(n - 1);
	let k = 0;
	while (k + 1 < n && times[k + 1] <= t) k++;
	const td = times[k + 1] - times[k], s = (t - times[k]) / td;
	if (interp === 'STEP') return value(k);
	if (cubic) {
		const s2 = s * s, s3 = s2 * s;
		const v0 = out.slice((3 * k + 1) * width), b0 = out.slice((3 * k + 2) * width);
		const a1 = out.slice((3 * k + 3) * width), v1 = out.slice((3 * k + 4) * width);
		const r = [];
		for (let i = 0; i < width; i++) r.push((2 * s3 - 3 * s2 + 1) * v0[i] + (s3 - 2 * s2 + s) * td * b0[i] + (-2 * s3 + 3 * s2) * v1[i] + (s3 - s2) * td * a1[i]);
		if (path === 'rotation') { const l = Math.hypot(...r); return r.map((v) => v / l); }
		return r;
	}
	const a = value(k), b = value(k + 1);
	if (path === 'rotation') return slerp(a, b, s);
	return a.map((v, i) => v + s * (b[i] - v));
}

const scene = root.getDefaultScene() || root.listScenes()[0];
const result = { times: [] };
for (const t of timeArgs.map(Number)) {
	// animated local transforms and weights
	const over = new Map();
	for (const ch of anim ? anim.listChannels() : []) {
		const node = ch.getTargetNode(), path = ch.getTargetPath(), smp = ch.getSampler();
		if (!node || !smp) continue;
		const o = over.get(node) || {};
		let width = { translation: 3, rotation: 4, scale: 3 }[path];
		if (path === 'weights') width = node.getMesh().listPrimitives()[0].listTargets().length;
		o[path] = sample(smp, path, width, t);
		over.set(node, o);
	}
	const local = (n) => {
		const o = over.get(n) || {};
		return trs(o.translation || n.getTranslation(), o.rotation || n.getRotation(), o.scale || n.getScale());
	};
	const world = new Map();
	const walk = (n, parent) => {
		const w = mul(parent, local(n));
		world.set(n, w);
		n.listChildren().forEach((c) => walk(c, w));
	};
	const id = trs([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]);
	scene.listChildren().forEach((n) => walk(n, id));
	const subs = [];
	const visit = (n) => {
		const mesh = n.getMesh();
		if (mesh) {
			const skin = n.getSkin();
			let skinMats = null;
			if (skin) {
				const ibm = skin.getInverseBindMatrices() ? elements(skin.getInverseBindMatrices()) : null;
				skinMats = skin.listJoints().map((j, i) => mul(world.get(j), ibm ? ibm[i] : id));
			}
			for (const prim of mesh.listPrimitives()) {
				if (![4, 5, 6].includes(prim.getMode())) continue;
				const pos = elements(prim.getAttribute('POSITION'));
				const targets = prim.listTargets();
				let w = (over.get(n) || {}).weights;
				if (!w) w = n.getWeights().length === targets.length ? n.getWeights() : mesh.getWeights();
				for (let k = 0; k < targets.length; k++) {
					const d = targets[k].getAttribute('POSITION');
					if (!d || !w[k]) continue;
					const dv = elements(d);
					pos.forEach((p, v) => { for (let c = 0; c < 3; c++) p[c] += w[k] * dv[v][c]; });
				}
				let posed;
				if (skinMats) {
					const sets = [];
					for (let s = 0; prim.getAttribute('JOINTS_' + s); s++) sets.push([elements(prim.getAttribute('JOINTS_' + s)), elements(prim.getAttribute('WEIGHTS_' + s))]);
					posed = pos.map((p, v) => {
						const r = [0, 0, 0];
						let sum = 0;
						for (const [js, ws] of sets) for (let k = 0; k < 4; k++) sum += ws[v][k];
						for (const [js, ws] of sets)
							for (let k = 0; k < 4; k++) {
								if (!ws[v][k]) continue;
								const q = point(skinMats[js[v][k]], p);
								for (let c = 0; c < 3; c++) r[c] += (ws[v][k] / sum) * q[c];
							}
						return r;
					});
				} else {
					posed = pos.map((p) => point(world.get(n), p));
				}
				subs.push(posed.flat());
			}
		}
		n.listChildren().forEach(visit);
	};
	scene.listChildren().forEach(visit);
	result.times.push({ t, submeshes: subs });
}
process.stdout.write(JSON.stringify(result));
