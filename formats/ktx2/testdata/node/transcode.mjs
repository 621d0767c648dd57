// Transcodes each Basis Universal KTX2 file named on the command line to
// RGBA8 with the Basis Universal transcoder that npm three ships
// (examples/jsm/libs/basis, pinned in package.json): an independent
// decoder of meshcook's UASTC and ETC1S output. Writes every level's RGBA
// bytes to OUTDIR/<file name>.<level>.rgba and prints one JSON object per
// file, one per line. formats/ktx2's TestBasisTranscoder measures PSNR on
// the result. Exit 1 when a file fails.
//
// usage: node transcode.mjs OUTDIR FILE...
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

// three ships the transcoder as a classic CommonJS-style script defining
// BASIS, but its package is "type": "module", so require() would load it as
// an ES module; run it as a function with the CommonJS names it reads.
const require = createRequire(import.meta.url);
const dir = "three/examples/jsm/libs/basis/";
const jsPath = require.resolve(dir + "basis_transcoder.js");
const src = readFileSync(jsPath, "utf8");
const BASIS = new Function("require", "__dirname", "__filename", src + "\nreturn BASIS;")(require, dirname(jsPath), jsPath);
const wasmBinary = readFileSync(require.resolve(dir + "basis_transcoder.wasm"));

const RGBA32 = 13; // transcoder_texture_format cTFRGBA32

const Module = await new Promise((resolve) => {
	const m = { wasmBinary, onRuntimeInitialized: () => resolve(m) };
	BASIS(m);
});
Module.initializeBasis();

const [outDir, ...files] = process.argv.slice(2);
let failed = false;
for (const file of files) {
	const k = new Module.KTX2File(new Uint8Array(readFileSync(file)));
	try {
		if (!k.isValid()) throw new Error("KTX2File: not valid");
		const codec = k.isUASTC() ? "uastc" : k.isETC1S() ? "etc1s" : "other";
		if (!k.startTranscoding()) throw new Error("startTranscoding failed");
		const levels = [];
		for (let mip = 0; mip < k.getLevels(); mip++) {
			const info = k.getImageLevelInfo(mip, 0, 0);
			const dst = new Uint8Array(k.getImageTranscodedSizeInBytes(mip, 0, 0, RGBA32));
			if (!k.transcodeImage(dst, mip, 0, 0, RGBA32, 0, -1, -1)) throw new Error(`transcodeImage level ${mip} failed`);
			writeFileSync(join(outDir, `${basename(file)}.${mip}.rgba`), dst);
			levels.push({ width: info.origWidth, height: info.origHeight, bytes: dst.byteLength });
		}
		console.log(JSON.stringify({
			file, codec, width: k.getWidth(), height: k.getHeight(),
			hasAlpha: !!k.getHasAlpha(), levels,
		}));
	} catch (e) {
		failed = true;
		console.log(JSON.stringify({ file, error: String(e) }));
	} finally {
		k.close();
		k.delete();
	}
}
// exitCode, not process.exit(): stdout to a pipe is written
// asynchronously once the pipe is full (a reader slowed by load), and
// process.exit() drops what is still queued: the lines of the last files
// were lost ("printed nothing").
process.exitCode = failed ? 1 : 0;
