// Child tool permissions decided by rule in real foreground launches (see permissions-helpers.ts):
// a deny blocks at once, agent frontmatter overrides the global rules, the most specific rule
// wins, and rules that only allow install no gate.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { noticeText, startSession } from "../../support/pi-session.ts";
import {
	ARBITER_ON,
	arbiterScript,
	childResults,
	decision,
	launch,
	permissionLines,
	subagentResult,
	writeRules,
} from "./permissions-helpers.ts";

describe("deny and allow", () => {
	it("blocks a denied tool at once with the rule in the reason the child sees, and lets other tools run", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo });
		const file = writeRules(t.agentDir, { write: "deny" });
		const { inputs } = arbiterScript(t, []);
		try {
			await launch(t, [
				["write", { path: "notes.txt", content: "hi\n" }],
				["read", { path: "README.md" }],
			]);
			expect(existsSync(join(repo, "notes.txt"))).toBe(false);
			const [write, read] = childResults(t);
			expect(write).toMatchObject({ tool: "write", isError: true });
			expect(write.text).toContain(`Blocked by the permission rule "write": "deny" (global config ${file})`);
			expect(read).toMatchObject({ tool: "read", isError: false });
			expect(read.text).toContain("hello");
			expect(inputs).toEqual([]); // a deny needs no model
			const [line] = permissionLines(t);
			expect(line).toMatchObject({
				kind: "permission",
				role: "worker",
				tool: "write",
				decision: "deny",
				how: "rule",
				latencyMs: 0,
			});
			expect(typeof line.run).toBe("string");
			expect(line.rule).toContain('"write": "deny"');
			// `history` shows it
			const shown = noticeText(await t.command("/subagents-watchdog history --kind permission"));
			expect(shown).toMatch(
				/permission\s+permissions\s+write denied by rule · rule "write": "deny" \(global config .*\) · 0 ms · denied by rule \(child worker, run \d{8}-\d{6}-[0-9a-f]{6}\)/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("lets an agent's frontmatter override a global rule (an explicit allow lifts a global deny)", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo });
		writeRules(t.agentDir, { write: "deny", edit: "deny" });
		mkdirSync(join(t.agentDir, "agents"), { recursive: true });
		writeFileSync(
			join(t.agentDir, "agents", "scribe.md"),
			"---\nname: scribe\ndescription: writes notes\ntools: read, write, edit\npermission:\n  write: allow\n---\nYou write notes.\n",
		);
		arbiterScript(t, []);
		try {
			await launch(
				t,
				[
					["write", { path: "notes.txt", content: "hi\n" }],
					["edit", { path: "notes.txt", edits: [{ oldText: "hi", newText: "ho" }] }],
				],
				"Write notes.txt",
				"scribe",
			);
			expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("hi\n");
			const [write, edit] = childResults(t);
			expect(write).toMatchObject({ tool: "write", isError: false });
			expect(edit).toMatchObject({ tool: "edit", isError: true });
			expect(edit.text).toContain('"edit": "deny" (global config');
		} finally {
			await t.dispose();
		}
	});

	it("decides by the most specific rule: an exact name beats a glob, a longer literal beats a shorter one; bash is never gated", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo, userSettings: ARBITER_ON });
		writeRules(t.agentDir, { "*": "deny", "l*": "ask", read: "allow", "r*": "deny", "wri?e": "allow", "w*": "deny" });
		arbiterScript(t, [decision("approve", "listing the folder fits the task")]);
		try {
			await launch(t, [
				["read", { path: "README.md" }],
				["ls", {}],
				["write", { path: "n.txt", content: "n\n" }],
				["edit", { path: "n.txt", edits: [{ oldText: "n", newText: "m" }] }],
				["bash", { command: "echo ran" }],
			]);
			const results = childResults(t);
			expect(results.map((r) => [r.tool, r.isError])).toEqual([
				["read", false],
				["ls", false],
				["write", false],
				["edit", true],
				["bash", false],
			]);
			expect(results[3].text).toContain('"*": "deny"');
			expect(results[4].text).toContain("ran");
			expect(permissionLines(t).map((l) => [l.tool, l.how, l.decision])).toEqual([
				["ls", "arbiter", "approve"],
				["edit", "rule", "deny"],
			]);
		} finally {
			await t.dispose();
		}
	});
});

it("a launch under rules that only allow installs no gate: no history line and no arbiter call", async () => {
	const repo = makeGitRepo({ "README.md": "hello\n" });
	const t = await startSession({ cwd: repo, userSettings: ARBITER_ON });
	writeRules(t.agentDir, { write: "allow", "mcp__*": "allow" });
	const { inputs } = arbiterScript(t, []);
	try {
		await launch(t, [["read", { path: "README.md" }]]);
		expect(childResults(t)[0].isError).toBe(false);
		expect(inputs).toEqual([]);
		expect(permissionLines(t)).toEqual([]);
		expect(subagentResult(t)).toMatch(/worker .*: done/);
	} finally {
		await t.dispose();
	}
});
