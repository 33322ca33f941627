// End to end through the real `pi` CLI in RPC mode with `clarification: true`: the reviewer
// (served by the scripted server) asks one question, the agent's next request carries it, the
// agent answers, and `history` shows the question and that it was delivered.
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

const QUESTION = "Should notes.md keep the old TODO list, or did the user want it gone?";

it("asks the agent the reviewer's question and the agent answers it", async () => {
	const repo = makeGitRepo({ "notes.md": "# notes\n- TODO: a\n" });
	const script = (req: ChatRequest) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			// Asking yields: a second reviewer turn would be a bug.
			if (last?.role === "tool") return { text: "unexpected second turn" };
			return {
				toolCalls: [
					{
						name: "watchdog_ask",
						args: { question: QUESTION, evidence: "notes.md lost its TODO list; the prompt only says 'tidy up'" },
					},
				],
			};
		}
		if (last?.role === "tool") return { text: "Tidied notes.md." };
		if (textOf(last?.content).includes(QUESTION))
			return { text: "The user asked only to tidy up; I will put the TODO list back." };
		return { toolCalls: [{ name: "write", args: { path: "notes.md", content: "# notes\n" } }] };
	};
	const cli = await startCli({
		cwd: repo,
		script,
		userSettings: wd({
			enabled: true,
			main: { model: "local/reviewer:high" },
			clarification: true,
			lsp: { enabled: false },
		}),
	});
	try {
		await cli.run("Tidy up notes.md", 60_000);
		const reviewerCalls = cli.server.requests.filter((r) => r.model === "reviewer");
		expect(reviewerCalls).toHaveLength(1);
		expect(reviewerCalls[0].tools?.map((t) => t.function.name)).toEqual(
			expect.arrayContaining(["watchdog_warn", "watchdog_ask"]),
		);
		const continuation = cli.server.requests.filter((r) => r.model === "main").at(-1);
		const asked = textOf(continuation?.messages.at(-1)?.content);
		expect(asked).toContain(QUESTION);
		expect(asked).toMatch(/It is a question, not a warning/);
		expect(await cli.client.getLastAssistantText()).toBe(
			"The user asked only to tidy up; I will put the TODO list back.",
		);
		const labels = cli.ui
			.filter((u) => u.method === "setStatus" && u.statusKey === "watchdog")
			.map((u) => u.statusText);
		expect(labels).toContain("watchdog: question sent");
		const history = (await cli.run("/subagents-watchdog history")).map((n) => n.message).join("\n");
		expect(history).toMatch(
			/question\s+main\s+asked: Should notes\.md keep the old TODO list, or did the user want it gone\? → delivered/,
		);
		expect(history).toMatch(/review\s+review\s+boundary · local\/reviewer:high · clean · 1 path/);
	} finally {
		await cli.stop();
	}
});
