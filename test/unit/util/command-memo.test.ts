// The per-command memo the detectors share: each short command worked out once, a long one (a heredoc) every
// time and never kept, and no more than 512 kept at once.
import { describe, expect, it } from "vitest";
import { memoPerCommand } from "../../../src/util/command-memo.ts";

function counted() {
	const seen: string[] = [];
	const of = memoPerCommand((command) => {
		seen.push(command);
		return { length: command.length };
	});
	return { of, seen };
}

describe("memoPerCommand", () => {
	it("works a command out once and hands back the same answer", () => {
		const { of, seen } = counted();
		const first = of("npm test");
		expect(of("npm test")).toBe(first);
		expect(of("git status")).toEqual({ length: 10 });
		expect(seen).toEqual(["npm test", "git status"]);
	});

	it("works a command over 1,000 characters out each time, so none is kept", () => {
		const { of, seen } = counted();
		const long = `cat > f.txt <<'EOF'\n${"x".repeat(1_000)}\nEOF`;
		of(long);
		of(long);
		of("x".repeat(1_000));
		of("x".repeat(1_000));
		expect(seen).toEqual([long, long, "x".repeat(1_000)]);
	});

	it("keeps at most 512 commands: the 513th starts the memo over", () => {
		const { of, seen } = counted();
		for (let i = 0; i < 512; i++) of(`echo ${i}`);
		of("echo 0");
		expect(seen).toHaveLength(512);
		of("echo 512");
		of("echo 0");
		expect(seen.slice(512)).toEqual(["echo 512", "echo 0"]);
	});
});
