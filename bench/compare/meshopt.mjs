// Runs meshoptimizer (the npm package's WASM build) on one mesh written by
// the Go driver (main.go) and writes its results back in a small binary
// form, so both tools' outputs are measured by the same Go code.
//
// usage: node meshopt.mjs MESH.bin OUT.bin OP [ARGS...]
//   MESH.bin: u32 vertexCount, u32 indexCount, f32 positions[3·vc], u32 indices[ic]
//   ops: meshlets MAXV MAXT CONE     → meshlets + bounds
//        vcache                      → reordered indices
//        simplify TARGET_IC ERROR    → simplified indices + error
//        simplify-attr TARGET_IC ERROR WEIGHT → the same, with normals weighted as attributes
// Prints one JSON line with the median time in ms of BENCH_RUNS timed runs,
// after BENCH_WARMUP untimed ones (node must run with --expose-gc: the
// garbage collector is settled before every run, as the Go side does).
import { readFileSync, writeFileSync } from 'node:fs';
import { MeshoptClusterizer, MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer';

const [meshPath, outPath, op, ...args] = process.argv.slice(2);
const buf = readFileSync(meshPath);
const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
const vc = dv.getUint32(0, true);
const ic = dv.getUint32(4, true);
const positions = new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + vc * 12));
const indices = new Uint32Array(buf.buffer.slice(buf.byteOffset + 8 + vc * 12, buf.byteOffset + 8 + vc * 12 + ic * 4));
// Optional smooth vertex normals after the indices (simplify-attr).
const nOff = buf.byteOffset + 8 + vc * 12 + ic * 4;
const normals = buf.byteLength >= 8 + vc * 24 + ic * 4 ? new Float32Array(buf.buffer.slice(nOff, nOff + vc * 12)) : null;

const RUNS = Number(process.env.BENCH_RUNS || 5);
const WARMUP = Number(process.env.BENCH_WARMUP || 2);
const settle = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

function timed(fn) {
	// Warm-up: the first call compiles the WASM paths it reaches, and one
	// run alone can leave the next slower (measured: 63 ms runs after a
	// 71-82 ms second one on FlightHelmet).
	for (let i = 0; i < WARMUP; i++) {
		fn();
	}
	const ms = [];
	let result;
	for (let i = 0; i < RUNS; i++) {
		settle();
		const t0 = process.hrtime.bigint();
		result = fn();
		ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
	}
	ms.sort((a, b) => a - b);
	return { result, ms: ms[Math.floor(ms.length / 2)] };
}

function u32(n) {
	const b = Buffer.alloc(4);
	b.writeUInt32LE(n >>> 0);
	return b;
}

await Promise.all([MeshoptClusterizer.ready, MeshoptEncoder.ready, MeshoptSimplifier.ready]);

let parts = [];
let extra = {};
if (op === 'meshlets') {
	const [maxv, maxt, cone] = args.map(Number);
	const { result: m, ms } = timed(() => MeshoptClusterizer.buildMeshlets(indices, positions, 3, maxv, maxt, cone));
	const bounds = MeshoptClusterizer.computeMeshletBounds(m, positions, 3);
	// meshlets: meshopt's (vertex_offset, triangle_offset, vertex_count, triangle_count)
	const meshlets = m.meshlets.subarray(0, m.meshletCount * 4);
	const last = m.meshletCount - 1;
	const vlen = m.meshletCount ? meshlets[last * 4] + meshlets[last * 4 + 2] : 0;
	const tlen = m.meshletCount ? (meshlets[last * 4 + 1] + meshlets[last * 4 + 3] * 3) : 0;
	const b = new Float32Array(m.meshletCount * 8);
	bounds.forEach((x, i) => b.set([x.centerX, x.centerY, x.centerZ, x.radius, x.coneAxisX, x.coneAxisY, x.coneAxisZ, x.coneCutoff], i * 8));
	parts = [u32(m.meshletCount), Buffer.from(meshlets.buffer, meshlets.byteOffset, meshlets.byteLength),
		u32(vlen), Buffer.from(m.vertices.buffer, m.vertices.byteOffset, vlen * 4),
		u32(tlen), Buffer.from(m.triangles.buffer, m.triangles.byteOffset, tlen),
		Buffer.from(b.buffer)];
	extra = { ms };
} else if (op === 'vcache') {
	// reorderMesh optimizes for the vertex cache, then remaps vertices for
	// fetch order, rewriting the index array in place: work on a copy.
	const { result: out, ms } = timed(() => {
		const ix = indices.slice();
		MeshoptEncoder.reorderMesh(ix, true, false);
		return ix;
	});
	parts = [u32(out.length), Buffer.from(out.buffer, out.byteOffset, out.byteLength)];
	extra = { ms };
} else if (op === 'simplify') {
	const [target, err] = args.map(Number);
	const flags = args[2] ? args[2].split(',') : [];
	const { result, ms } = timed(() => MeshoptSimplifier.simplify(indices, positions, 3, target, err, flags));
	const out = result[0];
	parts = [u32(out.length), Buffer.from(out.buffer, out.byteOffset, out.byteLength)];
	extra = { ms, error: result[1] };
} else if (op === 'simplify-attr') {
	const [target, err, w] = args.map(Number);
	const { result, ms } = timed(() => MeshoptSimplifier.simplifyWithAttributes(indices, positions, 3, normals, 3, [w, w, w], null, target, err, []));
	const out = result[0];
	parts = [u32(out.length), Buffer.from(out.buffer, out.byteOffset, out.byteLength)];
	extra = { ms, error: result[1] };
} else {
	console.error(`unknown op ${op}`);
	process.exit(2);
}
writeFileSync(outPath, Buffer.concat(parts));
console.log(JSON.stringify(extra));
