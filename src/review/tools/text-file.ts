// Reading files the reviewer asked for: regular files only (a FIFO or device would block or
// never end), text only (a NUL byte in the first 8 KiB means binary), and bounded in size.
import { constants } from "node:fs";
import { open } from "node:fs/promises";

export const BINARY_SNIFF_BYTES = 8192;

export type TextRead =
	| { ok: true; text: string; size: number }
	| { ok: false; reason: "missing" | "directory" | "special" | "binary" | "too-large" | "unreadable"; size?: number; message?: string };

export function looksBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export async function readTextFile(abs: string, maxBytes: number): Promise<TextRead> {
	let handle: Awaited<ReturnType<typeof open>>;
	try {
		// Non-blocking, so that opening a FIFO returns at once and is refused below.
		handle = await open(abs, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, reason: "missing" };
		if (code === "EISDIR") return { ok: false, reason: "directory" };
		return { ok: false, reason: "unreadable", message: (error as Error).message };
	}
	try {
		const info = await handle.stat();
		if (info.isDirectory()) return { ok: false, reason: "directory" };
		if (!info.isFile()) return { ok: false, reason: "special" };
		if (info.size > maxBytes) return { ok: false, reason: "too-large", size: info.size };
		const bytes = await handle.readFile();
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
