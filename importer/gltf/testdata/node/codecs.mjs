// Writes meshopt-encoded streams and their decoding by meshoptimizer's own
// decoder (npm meshoptimizer, pinned), one JSON object per line, for
// importer/gltf/meshopt's cross-check test. Data is generated from a fixed
// seed, so the output is the same on every run.
import { MeshoptEncoder, MeshoptDecoder } from 'meshoptimizer';

await MeshoptEncoder.ready;
await MeshoptDecoder.ready;

let seed = 12345;
function rand() {
	seed = (seed * 1103515245 + 12345) >>> 0;
	return seed / 4294967296;
}
const b64 = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('base64');

function emit(mode, filter, count, stride, enc) {
	const ref = new Uint8Array(count * stride);
	MeshoptDecoder.decodeGltfBuffer(ref, count, stride, enc, mode, filter);
	process.stdout.write(JSON.stringify({ mode, filter, count, stride, enc: b64(enc), ref: b64(ref) }) + '\n');
}

// attributes: smooth and noisy bytes, several strides and counts, every
// level and both versions
for (const stride of [4, 8, 12, 16, 24, 64, 256]) {
	for (const count of [1, 15, 16, 17, 200, 1000]) {
		for (const noisy of [false, true]) {
			const data = new Uint8Array(count * stride);
			for (let i = 0; i < count; i++) {
				for (let k = 0; k < stride; k++) {
					data[i * stride + k] = noisy ? (rand() * 256) | 0 : (i * (k + 1) + ((rand() * 3) | 0)) & 0xff;
				}
			}
			for (const version of [0, 1]) {
				for (const level of version === 0 ? [2] : [0, 1, 2, 3]) {
					emit('ATTRIBUTES', 'NONE', count, stride, MeshoptEncoder.encodeVertexBufferLevel(data, count, stride, level, version));
				}
			}
		}
	}
}

// 16-bit and float data that the v1 channel modes (2-byte deltas, XOR)
// suit
for (const kind of ['u16', 'f32']) {
	const count = 500, stride = 12;
	const data = new Uint8Array(count * stride);
	const view = new DataView(data.buffer);
	for (let i = 0; i < count; i++) {
		for (let k = 0; k < 3; k++) {
			const v = Math.sin(i * 0.05 + k) * 100 + rand();
			if (kind === 'u16') view.setUint16(i * stride + 2 * k, (v * 100 + 20000) & 0xffff, true);
			else view.setFloat32(i * stride + 4 * k, v, true);
		}
	}
	for (const level of [1, 2, 3]) {
		emit('ATTRIBUTES', 'NONE', count, stride, MeshoptEncoder.encodeVertexBufferLevel(data, count, stride, level, 1));
	}
}

// filters
const vec = (n, f) => {
	const out = new Float32Array(n);
	for (let i = 0; i < n; i++) out[i] = f(i);
	return out;
};
for (const stride of [4, 8]) {
	const count = 300;
	const normals = vec(count * 4, (i) => (i % 4 === 3 ? (rand() < 0.5 ? -1 : 1) : rand() * 2 - 1));
	for (let i = 0; i < count; i++) {
		const l = Math.hypot(normals[4 * i], normals[4 * i + 1], normals[4 * i + 2]) || 1;
		for (let k = 0; k < 3; k++) normals[4 * i + k] /= l;
	}
	for (const bits of stride === 4 ? [4, 8] : [8, 12, 16]) {
		const f = MeshoptEncoder.encodeFilterOct(normals, count, stride, bits);
		emit('ATTRIBUTES', 'OCTAHEDRAL', count, stride, MeshoptEncoder.encodeGltfBuffer(f, count, stride, 'ATTRIBUTES'));
	}
	const colors = vec(count * 4, () => rand());
	for (const bits of stride === 4 ? [6, 8] : [10, 16]) {
		const f = MeshoptEncoder.encodeFilterColor(colors, count, stride, bits);
		emit('ATTRIBUTES', 'COLOR', count, stride, MeshoptEncoder.encodeGltfBuffer(f, count, stride, 'ATTRIBUTES', 1));
	}
}
{
	const count = 300;
	const quats = vec(count * 4, () => rand() * 2 - 1);
	for (let i = 0; i < count; i++) {
		const l = Math.hypot(quats[4 * i], quats[4 * i + 1], quats[4 * i + 2], quats[4 * i + 3]);
		for (let k = 0; k < 4; k++) quats[4 * i + k] /= l;
	}
	for (const bits of [4, 9, 12, 16]) {
		const f = MeshoptEncoder.encodeFilterQuat(quats, count, 8, bits);
		emit('ATTRIBUTES', 'QUATERNION', count, 8, MeshoptEncoder.encodeGltfBuffer(f, count, 8, 'ATTRIBUTES'));
	}
	const floats = vec(count * 3, () => (rand() - 0.5) * Math.pow(2, (rand() * 40) | 0));
	for (const mode of ['Separate', 'SharedVector', 'SharedComponent', 'Clamped']) {
		for (const bits of [8, 15, 23]) {
			const f = MeshoptEncoder.encodeFilterExp(floats, count, 12, bits, mode);
			emit('ATTRIBUTES', 'EXPONENTIAL', count, 12, MeshoptEncoder.encodeGltfBuffer(f, count, 12, 'ATTRIBUTES'));
		}
	}
}

// triangles: a grid (optimized order) and random triangles; indices
function grid(n) {
	const idx = [];
	for (let y = 0; y < n; y++)
		for (let x = 0; x < n; x++) {
			const a = y * (n + 1) + x, b = a + 1, c = a + n + 1, d = c + 1;
			idx.push(a, b, c, b, d, c);
		}
	return idx;
}
for (const [name, idx] of [
	['grid', grid(20)],
	['random', Array.from({ length: 3 * 400 }, () => (rand() * 5000) | 0)],
	['big', Array.from({ length: 3 * 300 }, (_, i) => (i * 7919 + ((rand() * 100000) | 0)) % 1000000)],
]) {
	const u32 = new Uint32Array(idx);
	const [order] = MeshoptEncoder.reorderMesh(new Uint32Array(u32), true, false);
	for (const tris of name === 'grid' ? [order, u32] : [u32]) {
		for (const stride of name === 'big' ? [4] : [2, 4]) {
			const src = stride === 2 ? new Uint8Array(new Uint16Array(tris).buffer) : new Uint8Array(tris.buffer.slice(0));
			emit('TRIANGLES', 'NONE', tris.length, stride, MeshoptEncoder.encodeGltfBuffer(src, tris.length, stride, 'TRIANGLES'));
			emit('INDICES', 'NONE', tris.length, stride, MeshoptEncoder.encodeGltfBuffer(src, tris.length, stride, 'INDICES'));
		}
	}
}
