// Pi 1.6's nested tool calls in a real in-process session with Pi's codemode extension: a test
// run made inside a codemode script is evidence, live (the claims checker reading the branch)
// and afterwards (`scan` reading the session file); a `context_edit` entry in the file changes
// nothing of that; a call Esc cancelled before it ran is no call at all.
import { readFileSync, writeFileSync } from "node:fs";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { createCodemodeExtension, type ExtensionFactory, SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { scanSession } from "../../../src/scan/scan-session.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";
import { historyLines } from "../review/clarify-helpers.ts";
import { toolUse } from "../review/review-helpers.ts";

const REPO = {
	"package.json": `${JSON.stringify({ name: "t", private: true, scripts: { test: "node -e \"console.log('2 failed'); process.exit(1)\"" } })}\n`,
	"a.txt": "a\n",
};
const SCRIPT =
	"await tools.write({ path: 'a.txt', content: 'b' });\nconst r = await tools.bash({ command: 'npm test' });\nreturn r.exit_code;";

/** Drops the codemode result from the model's context at the settle, as an extension may: a real `context_edit` entry. */
const contextEditor: ExtensionFactory = (pi) => {
	pi.on("agent_before_settle", (event, ctx) => {
		const target = ctx.sessionManager
			.getBranch()
			.find((e) => e.type === "message" && (e.message as { toolName?: string }).toolName === "codemode");
		if (!target) return undefined;
		return { entries: [...(event.entries ?? []), { type: "context_edit", targetId: target.id, replacement: null }] };
	});
};

describe("nested tool calls", () => {
	it("sees a test run inside codemode live and in the session file, through a context edit", async () => {
		const cwd = makeGitRepo(REPO);
		const t = await startSession({
			cwd,
			// handsoff: the claim is shown, not sent, so the session ends on it (as scan then reads it)
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				lsp: { enabled: false },
				idle: { policy: "handsoff" },
			}),
			tools: ["read", "write", "bash", "codemode"],
			moreExtensions: [createCodemodeExtension(), contextEditor],
			sessionManager: SessionManager.create(cwd, tempDir()),
		});
		t.main.setResponses([toolUse("codemode", { code: SCRIPT }), fauxAssistantMessage("Done. All tests pass.")]);
		t.reviewer.setResponses([fauxAssistantMessage("clean")]);
		let file: string | undefined;
		try {
			await t.session.prompt("Change a.txt to b and run the tests");
			await t.session.waitForIdle();
			file = t.session.sessionManager.getSessionFile();
			const claims = historyLines(t).filter((l) => l.kind === "finding" && l.source === "claims");
			expect(claims.map((l) => l.summary)).toEqual(['Claim contradicted by the log: "All tests pass."']);
		} finally {
			await t.dispose();
		}
		const lines = readFileSync(file as string, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		expect(lines.some((l) => l.type === "context_edit")).toBe(true);
		const report = await scanSession(file as string);
		expect(report.calls).toBe(3); // the nested write and bash, then codemode itself
		expect(report.claims.flagged).toBe(true);
		expect(report.claims.signals).toEqual([expect.objectContaining({ verdict: "contradicted" })]);
	});

	it("reads no call from a result Esc cancelled before the call ran", async () => {
		const dir = tempDir();
		const file = `${dir}/s.jsonl`;
		const msg = (id: string, message: Record<string, unknown>) => ({
			type: "message",
			id,
			parentId: null,
			timestamp: "t",
			message,
		});
		const read = (id: string) => ({ type: "toolCall", id, name: "read", arguments: { path: "a.txt" } });
		const result = (id: string, text: string, isError: boolean) =>
			msg(`r${id}`, {
				role: "toolResult",
				toolCallId: id,
				toolName: "read",
				content: [{ type: "text", text }],
				isError,
			});
		const entries = [
			{ type: "session", version: 3, id: "s", timestamp: "t", cwd: dir },
			msg("u", { role: "user", content: [{ type: "text", text: "read it" }] }),
			msg("a", { role: "assistant", content: [read("c1"), read("c2"), read("c3")], stopReason: "toolUse" }),
			result("c1", "a", false),
			result("c2", "Operation aborted", true),
			result("c3", "Operation aborted", true),
			msg("b", { role: "assistant", content: [{ type: "text", text: "Stopped." }], stopReason: "stop" }),
		];
		writeFileSync(file, `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`);
		const report = await scanSession(file);
		expect(report.calls).toBe(1);
	});
});
