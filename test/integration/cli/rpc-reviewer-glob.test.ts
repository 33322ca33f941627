// A reviewer model's glob that would backtrack catastrophically, through the real `pi --mode
// rpc`: the review finishes well within its deadline and Pi answers RPC all along.
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

const PATTERN = "*a*a*a*a*a*a*a*a*a*a*a*a*b";

it("matches a catastrophic glob from the reviewer in linear time, without freezing Pi", async () => {
	const repo = makeGitRepo({ [`${"a".repeat(200)}.txt`]: "x\n", "notes.md": "n\n" });
	let toolResult = "";
	const script = (req: ChatRequest) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			if (last?.role === "tool") {
				toolResult = textOf(last.content);
				return { text: "clean" };
			}
			return { toolCalls: [{ name: "find", args: { pattern: PATTERN } }] };
		}
		if (last?.role === "tool") return { text: "done" };
		return { toolCalls: [{ name: "write", args: { path: "notes.md", content: "n2\n" } }] };
	};
	const cli = await startCli({
		cwd: repo,
		script,
		userSettings: wd({
			enabled: true,
			main: { model: "local/reviewer" },
			agentEndTimeoutMs: 5000,
			lsp: { enabled: false },
		}),
	});
	try {
		await cli.client.getState(); // startup
		let slowest = 0;
		let done = false;
		const poll = (async () => {
			while (!done) {
				const started = Date.now();
				await cli.client.getState();
				slowest = Math.max(slowest, Date.now() - started);
				await new Promise((r) => setTimeout(r, 50));
			}
		})();
		const started = Date.now();
		await cli.run("update the notes", 60_000);
		const took = Date.now() - started;
		done = true;
		await poll;
		expect(toolResult).toBe(`No files match ${JSON.stringify(PATTERN)} under the repository root.`);
		expect(took).toBeLessThan(5000);
		expect(slowest).toBeLessThan(1000);
		const status = (await cli.run("/subagents-watchdog status --settings")).map((u) => u.message ?? "").join("\n");
		expect(status).not.toMatch(/review failed/);
	} finally {
		await cli.stop();
	}
});
