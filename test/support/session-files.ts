// Helpers for the scan tests: session files written into temp folders, and reading them back.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SessionEvent, ToolCallRecord } from "../../src/transcript/tool-call.ts";
import { type OpenedSession, openSession } from "../../src/scan/read-session.ts";
import { type Ran, runProcess } from "./run-process.ts";
import { tempDir } from "./temp.ts";

/** Writes a file of lines: objects as JSON, strings as they are. */
export function writeSessionFile(
	name: string,
	lines: Array<object | string>,
	dir = tempDir("pi-watchdog-scan-"),
): string {
	const path = join(dir, name);
	writeFileSync(path, `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
	return path;
}

export function writeText(name: string, text: string, dir = tempDir("pi-watchdog-scan-")): string {
	const path = join(dir, name);
	writeFileSync(path, text);
	return path;
}

export async function readAll(path: string): Promise<{ session: OpenedSession; events: SessionEvent[] }> {
	const session = await openSession(path);
	const events: SessionEvent[] = [];
	for await (const event of session.events) events.push(event);
	return { session, events };
}

/** A call event as the tests expect it: the fields given, no others. */
export function call(fields: Omit<ToolCallRecord, "isError"> & { isError?: boolean }): SessionEvent {
	return { type: "call", call: { isError: false, ...fields } };
}

export const prompt = (text: string): SessionEvent => ({ type: "prompt", text });
export const assistant = (text: string): SessionEvent => ({ type: "assistant", text });
/** A message line holding only hidden reasoning (Claude logs write each block as its own line). */
export const reasoningOnly: SessionEvent = { type: "assistant", text: "", thinking: true };

const BIN = resolve(import.meta.dirname, "../../bin/pi-watchdog.mjs");

/** Runs the real bin; `env` is added to this process's environment. */
export function runBin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
	return runProcess(process.execPath, [BIN, ...args], {
		cwd: options.cwd,
		env: { ...process.env, ...options.env },
		timeoutMs: 60_000,
	});
}
