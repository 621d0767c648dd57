// Reads each KTX2 file named on the command line with ktx-parse (an
// independent reader, npm ktx-parse pinned in package.json) and prints one
// JSON object per file, one per line. formats/ktx2's TestKTXParse compares
// these with what the Go package wrote. Exit 1 when a file fails to parse.
//
// usage: node check.mjs FILE...
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { read } from "ktx-parse";

let failed = false;
for (const file of process.argv.slice(2)) {
	try {
		const c = read(new Uint8Array(readFileSync(file)));
		const d = c.dataFormatDescriptor[0];
		const keyValue = {};
		for (const key of Object.keys(c.keyValue).sort()) {
			const v = c.keyValue[key];
			keyValue[key] = typeof v === "string" ? v : Buffer.from(v).toString("hex");
		}
		console.log(
			JSON.stringify({
				file,
				vkFormat: c.vkFormat,
				typeSize: c.typeSize,
				pixelWidth: c.pixelWidth,
				pixelHeight: c.pixelHeight,
				pixelDepth: c.pixelDepth,
				layerCount: c.layerCount,
				faceCount: c.faceCount,
				levelCount: c.levels.length,
				supercompressionScheme: c.supercompressionScheme,
				levels: c.levels.map((l) => ({
					byteLength: l.levelData.byteLength,
					uncompressedByteLength: l.uncompressedByteLength,
					sha256: createHash("sha256").update(l.levelData).digest("hex"),
				})),
				dfd: {
					vendorId: d.vendorId,
					descriptorType: d.descriptorType,
					versionNumber: d.versionNumber,
					colorModel: d.colorModel,
					colorPrimaries: d.colorPrimaries,
					transferFunction: d.transferFunction,
					flags: d.flags,
					texelBlockDimension: d.texelBlockDimension,
					bytesPlane: d.bytesPlane,
					samples: d.samples.map((s) => ({
						bitOffset: s.bitOffset,
						bitLength: s.bitLength,
						channelType: s.channelType,
						sampleLower: s.sampleLower,
						sampleUpper: s.sampleUpper,
					})),
				},
				keyValue,
			}),
		);
	} catch (e) {
		failed = true;
		console.log(JSON.stringify({ file, error: String(e) }));
	}
}
// exitCode, not process.exit(): stdout to a pipe is written
// asynchronously once the pipe is full (a reader slowed by load), and
// process.exit() drops what is still queued: the lines of the last files
// were lost ("printed nothing").
process.exitCode = failed ? 1 : 0;
