// The permission gate applies to a call a tool makes through another (Pi 1.6's nested calls,
// here from a script in Pi's codemode extension) exactly as to a direct call: a child watchdog
// whose rules deny `write` refuses the write inside the script, and the file is never written.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { createCodemodeExtension } from "@earendil-works/pi-coding-agent";
import { expect, it } from "vitest";
import { createWatchdogExtension } from "../../../src/extension.ts";
import { layerPolicy } from "../../../src/permissions/index.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { ON, text, toolUse } from "../review/review-helpers.ts";

it("denies a write made inside a codemode script when the child's rules deny write", async () => {
	const repo = makeGitRepo({ "a.txt": "a\n" });
	const extension = createWatchdogExtension({
		role: "worker",
		permissions: layerPolicy(undefined, { rules: { write: "deny" }, file: "/agents/worker.md" }),
	});
	const t = await startSession({
		cwd: repo,
		userSettings: ON,
		extension,
		moreExtensions: [createCodemodeExtension()],
		tools: ["read", "write", "bash", "codemode"],
	});
	let result = "";
	const script =
		"try { await tools.write({ path: 'b.txt', content: 'b' }); return 'wrote'; } catch (e) { return String(e); }";
	t.main.setResponses([
		toolUse("codemode", { code: script }),
		(ctx) => (
			(result = text((ctx as { messages: Array<{ content: unknown }> }).messages.at(-1)?.content)),
			fauxAssistantMessage("ok")
		),
	]);
	try {
		await t.session.prompt("write b.txt from a script");
		await t.session.waitForIdle();
		expect(existsSync(join(repo, "b.txt"))).toBe(false);
		expect(result).toMatch(/write/);
		expect(result).not.toContain("wrote");
		const lines = readFileSync(join(t.agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		expect(lines.filter((l) => l.kind === "permission")).toEqual([
			expect.objectContaining({ tool: "write", decision: "deny", how: "rule" }),
		]);
	} finally {
		await t.dispose();
	}
});
