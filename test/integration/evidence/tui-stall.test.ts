// The TUI stall path in a real in-process Pi session presented as the TUI (mode "tui"): the
// main session's nudge (idle.main on) is not sent at the settle; it waits idle.stallMs without
// input, then starts a run; any input before that cancels it.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { textOf as text } from "../../support/openai-server.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

type Ctx = { messages: Array<{ role: string; content: unknown }> };
const lastUser = (ctx: unknown) => text((ctx as Ctx).messages.at(-1)?.content);
const STALL_MS = 600;
const settings = wd({
	enabled: true,
	main: { model: "faux-reviewer/reviewer-model" },
	lsp: { enabled: false },
	idle: { main: true, stallMs: STALL_MS },
});

/** Waits until `done()` holds, at most `ms`. */
async function eventually(done: () => boolean, ms: number): Promise<void> {
	const end = Date.now() + ms;
	while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the TUI stall before a main-session nudge", () => {
	it("nudges only after idle.stallMs without input, and the agent carries on", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "notes.txt": "42\n" }), userSettings: settings, mode: "tui" });
		const seen: string[] = [];
		t.main.setResponses([
			fauxAssistantMessage("I have the numbers. Next I'll write them into the summary."),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("The summary: 42.")),
		]);
		try {
			const settled = Date.now();
			await t.session.prompt("summarise notes.txt");
			await t.session.waitForIdle();
			// At the settle: no nudge yet, one waiting (status says so).
			expect(t.main.state.callCount).toBe(1);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/one waiting for the stall time/);
			await eventually(() => t.main.state.callCount >= 2, 10_000);
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(2);
			expect(Date.now() - settled).toBeGreaterThanOrEqual(STALL_MS);
			expect(seen[0]).toMatch(/Stopped right after announcing a next step/);
			expect(seen[0]).toMatch(/The task: summarise notes\.txt/);
			const after = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(after).toMatch(/Evidence: policy keep, 1 nudge\(s\)/);
		} finally {
			await t.dispose();
		}
	});

	it("any input before the stall time cancels the nudge", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "notes.txt": "42\n" }), userSettings: settings, mode: "tui" });
		const seen: string[] = [];
		t.main.setResponses([
			fauxAssistantMessage("I have the numbers. Next I'll write them into the summary."),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("Understood, I have stopped.")),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("unused")),
		]);
		try {
			await t.session.prompt("summarise notes.txt");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(1);
			// The user types before the stall time is up.
			await t.session.prompt("leave it there, thanks");
			await t.session.waitForIdle();
			await sleep(STALL_MS * 3);
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(2);
			expect(seen).toEqual(["leave it there, thanks"]);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/nudges: on, 0 sent this session/);
			expect(status).not.toMatch(/one waiting for the stall time/);
		} finally {
			await t.dispose();
		}
	});

	it("outside the TUI (RPC) the same stop is nudged at the settle, with no wait", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "notes.txt": "42\n" }),
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				lsp: { enabled: false },
				idle: { main: true, stallMs: 60_000 },
			}),
			mode: "rpc",
		});
		t.main.setResponses([
			fauxAssistantMessage("I have the numbers. Next I'll write them into the summary."),
			fauxAssistantMessage("The summary: 42."),
		]);
		try {
			const started = Date.now();
			await t.session.prompt("summarise notes.txt");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(2);
			expect(Date.now() - started).toBeLessThan(30_000);
		} finally {
			await t.dispose();
		}
	});
});
