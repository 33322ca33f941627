// Reading files the reviewer asked for: inside the repository as checked on the opened
// descriptor (see open-confined.ts), regular files only (a FIFO or device would block or never
// end), text only (a NUL byte in the first 8 KiB means binary), and bounded in size.
import type { FileHandle } from "node:fs/promises";
import { openConfined } from "./open-confined.ts";

export const BINARY_SNIFF_BYTES = 8192;

export type TextRead =
	| { ok: true; text: string; size: number }
	| {
			ok: false;
			reason: "missing" | "directory" | "special" | "binary" | "too-large" | "outside" | "unreadable";
			size?: number;
			message?: string;
	  };

export function looksBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Reads `abs` (a real path) as text when it is a file inside `realRoot` of at most `maxBytes`. */
export async function readTextFile(realRoot: string, abs: string, maxBytes: number): Promise<TextRead> {
	const opened = await openConfined(realRoot, abs);
	if (!opened.ok) return opened;
	const { handle, info } = opened;
	try {
		if (info.isDirectory()) return { ok: false, reason: "directory" };
		if (!info.isFile()) return { ok: false, reason: "special" };
		if (info.size > maxBytes) return { ok: false, reason: "too-large", size: info.size };
		const bytes = await readUpTo(handle, info.size);
		if (looksBinary(bytes)) return { ok: false, reason: "binary", size: info.size };
		return { ok: true, text: bytes.toString("utf8"), size: info.size };
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EISDIR") return { ok: false, reason: "directory" };
		return { ok: false, reason: "unreadable", message: (error as Error).message };
	} finally {
		await handle.close().catch(() => {});
	}
}

/** At most `size` bytes from the start: a file still growing cannot make the read unbounded. */
async function readUpTo(handle: FileHandle, size: number): Promise<Buffer> {
	const buffer = Buffer.alloc(size);
	let filled = 0;
	while (filled < size) {
		const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
		if (bytesRead === 0) break;
		filled += bytesRead;
	}
	return buffer.subarray(0, filled);
}

/** Splits file text into lines; a final newline does not start another line. */
export function splitLines(text: string): string[] {
	if (text === "") return [];
	const lines = text.split(/\r?\n/);
	if (lines[lines.length - 1] === "") lines.pop();
	return lines;
}

export function formatBytes(size: number): string {
	if (size < 1024) return `${size} bytes`;
	if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
	return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
