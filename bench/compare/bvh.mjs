// The second, independent error metric of the cook-path rows: symmetric
// Hausdorff distance between a reference mesh and each candidate, measured
// with three-mesh-bvh (npm, pinned) instead of meshcook's internal/geomerr.
// Each surface is sampled at every referenced vertex plus SAMPLES
// area-weighted random points (a fixed-seed generator), and every sample's
// distance to the other surface is the BVH's closest-point query. Distances
// are relative to the diagonal of the reference's bounding box, computed
// here.
//
// usage: node bvh.mjs JOB.json
//   JOB.json: {"ref": "REF.bin", "candidates": ["A.bin", ...], "samples": N}
//   *.bin: u32 vertexCount, u32 indexCount, f32 positions[3·vc], u32 indices[ic]
// Prints one JSON array: per candidate {"toRef", "fromRef", "hausdorff"}.
import { readFileSync } from 'node:fs';
import { BufferAttribute, BufferGeometry, Vector3 } from 'three';
import { MeshBVH } from 'three-mesh-bvh';

function load(path) {
	const buf = readFileSync(path);
	const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
	const vc = dv.getUint32(0, true);
	const ic = dv.getUint32(4, true);
	const positions = new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + vc * 12));
	const indices = new Uint32Array(buf.buffer.slice(buf.byteOffset + 8 + vc * 12, buf.byteOffset + 8 + vc * 12 + ic * 4));
	return { positions, indices };
}

// mulberry32: a small seeded generator, so runs are repeatable.
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// samples returns [x, y, z, ...]: every referenced vertex, then n points
// spread over the triangles in proportion to their area.
function samples(m, n, seed) {
	const { positions: p, indices: ix } = m;
	const used = new Uint8Array(p.length / 3);
	const out = [];
	for (const v of ix) {
		if (!used[v]) {
			used[v] = 1;
			out.push(p[3 * v], p[3 * v + 1], p[3 * v + 2]);
		}
	}
	const tris = ix.length / 3;
	const cum = new Float64Array(tris);
	let total = 0;
	for (let t = 0; t < tris; t++) {
		const a = 3 * ix[3 * t], b = 3 * ix[3 * t + 1], c = 3 * ix[3 * t + 2];
		const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
		const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
		const cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
		total += Math.sqrt(cx * cx + cy * cy + cz * cz) / 2;
		cum[t] = total;
	}
	if (total === 0) {
		return Float64Array.from(out);
	}
	const r = rng(seed);
	for (let i = 0; i < n; i++) {
		const x = r() * total;
		let lo = 0, hi = tris - 1;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (cum[mid] < x) lo = mid + 1; else hi = mid;
		}
		const a = 3 * ix[3 * lo], b = 3 * ix[3 * lo + 1], c = 3 * ix[3 * lo + 2];
		let s = r(), t = r();
		if (s + t > 1) {
			s = 1 - s;
			t = 1 - t;
		}
		for (let k = 0; k < 3; k++) {
			out.push(p[a + k] + s * (p[b + k] - p[a + k]) + t * (p[c + k] - p[a + k]));
		}
	}
	return Float64Array.from(out);
}

// bvhOf builds the BVH over a copy of the index buffer (MeshBVH reorders
// the index it is given).
function bvhOf(m) {
	const g = new BufferGeometry();
	g.setAttribute('position', new BufferAttribute(m.positions, 3));
	g.setIndex(new BufferAttribute(m.indices.slice(), 1));
	return new MeshBVH(g);
}

// oneSided is the largest distance from the points to the surface.
function oneSided(points, bvh) {
	const q = new Vector3();
	const hit = {};
	let worst = 0;
	for (let i = 0; i < points.length; i += 3) {
		q.set(points[i], points[i + 1], points[i + 2]);
		bvh.closestPointToPoint(q, hit);
		worst = Math.max(worst, hit.distance);
	}
	return worst;
}

function diagonal(m) {
	const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
	for (const v of m.indices) {
		for (let k = 0; k < 3; k++) {
			lo[k] = Math.min(lo[k], m.positions[3 * v + k]);
			hi[k] = Math.max(hi[k], m.positions[3 * v + k]);
		}
	}
	return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const n = job.samples ?? 60000;
const ref = load(job.ref);
const diag = diagonal(ref);
const refPoints = samples(ref, n, 1);
const refBVH = bvhOf(ref);
const results = [];
for (const path of job.candidates) {
	const c = load(path);
	if (c.indices.length === 0) {
		results.push({ toRef: null, fromRef: null, hausdorff: null });
		continue;
	}
	const toRef = oneSided(samples(c, n, 2), refBVH) / diag;
	const fromRef = oneSided(refPoints, bvhOf(c)) / diag;
	results.push({ toRef, fromRef, hausdorff: Math.max(toRef, fromRef) });
}
console.log(JSON.stringify(results));
