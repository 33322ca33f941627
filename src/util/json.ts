// The one check for "a JSON object" (settings, session entries, recorded transcripts), and a
// small JSON file read through the guarded reader as one.
import { readFileInRoot } from "./safe-file.ts";

/** A plain object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** One JSON object from a file inside `root` (guarded read, whole file or nothing), or undefined. */
export function readJsonObject(path: string, root: string, maxBytes: number): Record<string, unknown> | undefined {
	const read = readFileInRoot(path, { root, maxBytes, overLimit: "refuse" });
	if (read.state !== "ok") return undefined;
	try {
		const value = JSON.parse(read.text) as unknown;
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}
