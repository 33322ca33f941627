import { describe, expect, it } from "vitest";
import { join, relative } from "node:path";
import { HeldBack, judgeFile, mappedSnapshot, type TrustSnapshot } from "../../../src/host/trust-snapshot.ts";

const snap = (decided: boolean, files: TrustSnapshot["files"]): TrustSnapshot => ({
	root: "/p",
	decided,
	why: decided ? "you decided" : "no decision",
	files,
	takenAt: 0,
});
const file = (hash: string) => ({ kind: "file" as const, hash });

describe("judging a project file against the trust snapshot", () => {
	it("uses only what was there at the decision", () => {
		const s = snap(true, { "/p/.pi/settings.json": file("a"), "/p/.pi/gone.md": file("g") });
		expect(judgeFile(s, "/p/.pi/settings.json", file("a"))).toEqual({ use: true });
		expect(judgeFile(s, "/p/.pi/settings.json", file("b"))).toEqual({
			use: false,
			held: true,
			why: "it changed after you decided to trust the project",
		});
		expect(judgeFile(s, "/p/.pi/agents/evil.md", file("e"))).toEqual({
			use: false,
			held: true,
			why: "it appeared after you decided to trust the project",
		});
		// Nothing there: nothing to use or hold back.
		expect(judgeFile(s, "/p/.pi/gone.md", { kind: "absent" })).toEqual({ use: true });
		// A file swapped for something unreadable is held back, not reported as the project's.
		expect(judgeFile(s, "/p/.pi/settings.json", { kind: "unreadable", reason: "a FIFO" })).toMatchObject({
			use: false,
			held: true,
		});
		expect(
			judgeFile(snap(true, { "/p/x": { kind: "unreadable", reason: "r" } }), "/p/x", {
				kind: "unreadable",
				reason: "r",
			}),
		).toEqual({ use: true });
	});

	it("trusts nothing without a decision, and notes files that appear later", () => {
		const s = snap(false, { "/p/.pi/settings.json": file("(not read)") });
		expect(judgeFile(s, "/p/.pi/settings.json", file("(not read)"))).toEqual({
			use: false,
			held: false,
			why: "no decision",
		});
		expect(judgeFile(s, "/p/.pi/WATCHDOG.md", file("(not read)"))).toMatchObject({
			use: false,
			held: true,
			why: expect.stringMatching(/appeared after the session started, and no trust decision/),
		});
	});

	it("moves a snapshot to a worktree: the same place, the same content only", () => {
		const s = snap(true, { "/p/.pi/WATCHDOG.md": file("w"), "/repo-top/node_modules/.bin/x": file("x") });
		const moved = mappedSnapshot({ ...s, root: "/p" }, "/wt/1", "/p", relative, join);
		expect(judgeFile(moved, "/wt/1/.pi/WATCHDOG.md", file("w"))).toEqual({ use: true });
		expect(judgeFile(moved, "/wt/1/.pi/WATCHDOG.md", file("other"))).toMatchObject({ use: false, held: true });
		expect(judgeFile(moved, "/p/.pi/WATCHDOG.md", file("w"))).toMatchObject({ use: false, held: true });
	});

	it("says once what was held back, with the command that allows it", () => {
		const held = new HeldBack();
		expect(held.notice("/trust-cmd")).toBeUndefined();
		held.add("/p/.pi/settings.json", "it changed");
		held.add("/p/.pi/agents/evil.md", "it appeared");
		expect(held.notice("/trust-cmd")).toBe(
			"Watchdog: held back project files: /p/.pi/settings.json (it changed); /p/.pi/agents/evil.md (it appeared). They are not run, read or applied (status --all lists all held back). If you trust them, run /trust-cmd.",
		);
		held.add("/p/.pi/WATCHDOG.md", "it appeared");
		expect(held.notice("/trust-cmd")).toBeUndefined();
		expect(held.list()).toHaveLength(3);
	});
});
