// What the manager says when typescript-language-server stopped because its tsserver exited: the
// server's own words on stderr, and a hint at the heap limit when tsserver aborted.
import { describe, expect, it } from "vitest";
import { tsserverExit } from "../../../src/lsp/server-exit.ts";

const line = (code: string, signal: string) =>
	`Error: tsserver process has exited (exit code: ${code}, signal: ${signal}). Stopping the server.\n    at …`;

describe("tsserverExit", () => {
	it("names an abort as running out of memory and points at lsp.serverMemoryMb", () => {
		expect(tsserverExit(`log line\n${line("null", "SIGABRT")}`)).toBe(
			" because its tsserver exited (signal SIGABRT); tsserver ends this way when it runs out of memory: " +
				"raise lsp.serverMemoryMb for a large project",
		);
		expect(tsserverExit(`FATAL ERROR: Reached heap limit\n${line("1", "null")}`)).toMatch(/lsp\.serverMemoryMb/);
	});

	it("says how tsserver exited otherwise, without the memory hint", () => {
		expect(tsserverExit(line("1", "null"))).toBe(" because its tsserver exited (code 1)");
		expect(tsserverExit(line("null", "SIGKILL"))).toBe(" because its tsserver exited (signal SIGKILL)");
	});

	it("adds nothing when the log does not say tsserver exited", () => {
		expect(tsserverExit("")).toBe("");
		expect(tsserverExit("some other crash")).toBe("");
	});
});
