// A monitor can refuse a tool call (the permission gate will): the check answers before the
// change gate takes its snapshot, and a refused call never runs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { expect, it } from "vitest";
import { createWatchdogExtension } from "../../../src/extension.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { ON, text, toolUse } from "../review/review-helpers.ts";

it("lets a check refuse a tool call before anything else runs", async () => {
	const repo = makeGitRepo({ "a.txt": "a\n" });
	const asked: string[] = [];
	const extension = createWatchdogExtension({
		role: "worker",
		toolCallChecks: [
			(_ctx, call) => {
				asked.push(call.toolName);
				return call.toolName === "write" ? { block: true, reason: "write is denied for the worker role" } : undefined;
			},
		],
	});
	const t = await startSession({ cwd: repo, userSettings: ON, extension });
	let result = "";
	t.main.setResponses([
		toolUse("write", { path: "b.txt", content: "b\n" }),
		(ctx) => (
			(result = text((ctx as { messages: Array<{ content: unknown }> }).messages.at(-1)?.content)),
			fauxAssistantMessage("ok")
		),
	]);
	try {
		await t.session.prompt("write b.txt");
		await t.session.waitForIdle();
		expect(asked).toEqual(["write"]);
		expect(existsSync(join(repo, "b.txt"))).toBe(false);
		expect(result).toContain("write is denied for the worker role");
		// Nothing ran, so nothing changed and nothing was reviewed.
		expect(t.reviewer.state.callCount).toBe(0);
	} finally {
		await t.dispose();
	}
});
