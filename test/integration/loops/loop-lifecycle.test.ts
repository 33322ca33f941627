// The loop detector in a real session: a loop is steered in, escalates if it goes on, and is
// resolved when something lands; the model restating itself is seen from its messages' text.
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { textOf as text } from "../../support/openai-server.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

type Ctx = { messages: Array<{ role: string; content: unknown }> };
const all = (ctx: unknown) => (ctx as Ctx).messages.map((m) => text(m.content)).join("\n");
const call = (name: string, args: Record<string, unknown>) =>
	fauxAssistantMessage([fauxToolCall(name, args as never)], { stopReason: "toolUse" });
const poll = () => call("bash", { command: "cat status.txt" });

describe("loop lifecycle", () => {
	it("steers a loop in, escalates it when it goes on, and resolves it when something lands", async () => {
		const repo = makeGitRepo({ "status.txt": "running\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { enabled: false } }),
		});
		const seen: string[] = [];
		const see = (next: ReturnType<typeof call>) => (ctx: unknown) => (seen.push(all(ctx)), next);
		t.main.setResponses([
			poll(),
			poll(),
			poll(),
			poll(),
			poll(),
			see(poll()),
			poll(),
			poll(),
			see(call("write", { path: "status.txt", content: "done\n" })),
			see(fauxAssistantMessage("finished")),
		]);
		t.reviewer.setResponses([fauxAssistantMessage("clean")]);
		try {
			await t.session.prompt("wait until status.txt says done, then write done");
			await t.session.waitForIdle();
			// After the fifth identical call: a warning (concern) with evidence and a way out.
			expect(seen[0]).toMatch(/Concern: Same bash call repeated 5 times\n/);
			expect(seen[0]).toMatch(/> Call: bash `cat status\.txt`\. Identical result each time, calls 0–4/);
			expect(seen[0]).toMatch(/Importance: high · Severity: concern · Category: loop-risk · Source: loops/);
			expect(seen[0]).toMatch(/Suggested action, as the watchdog reported it:\n> Stop repeating this call/);
			expect(seen[0]).toMatch(/a second model, with deterministic checks, reviewing this session; it can be wrong/);
			// Three more: escalated to a blocker, once.
			expect(seen[1]).toMatch(/Blocker: Still looping: Same bash call repeated 8 times\n/);
			expect(seen[1]).toMatch(/> Warned at call 4; the loop went on\. Call: bash `cat status\.txt`/);
			expect(seen[1]).toMatch(/Severity: blocker/);
			expect(seen[1].match(/Still looping/g)).toHaveLength(1);
			// The write landed: resolved, and said so.
			expect(t.notices.map((n) => n.message)).toContainEqual(
				expect.stringMatching(/^Watchdog: loop resolved: write status\.txt landed/),
			);
			const kinds = (t.session.sessionManager.getEntries() as any[]).map((e) => e.customType).filter(Boolean);
			expect(kinds.filter((k) => k === "watchdog-finding")).toHaveLength(2);
			expect(kinds).toContain("watchdog-loop-resolved");
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Loops:.*calls seen: 9/s);
			expect(status).toMatch(/suspicions: none/);
			expect(status).toMatch(/last finding: Still looping/);
		} finally {
			await t.dispose();
		}
	});

	it("stops the run when the loop goes on and loops.stopRun is set", async () => {
		const repo = makeGitRepo({ "status.txt": "running\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, loops: { stopRun: true } }),
		});
		t.main.setResponses(Array.from({ length: 20 }, () => poll()));
		try {
			await t.session.prompt("wait for status.txt");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBeLessThan(12);
			expect(t.notices.map((n) => n.message)).toContainEqual(
				expect.stringMatching(/^Watchdog stopped the run: Still looping/),
			);
		} finally {
			await t.dispose();
		}
	});

	it("does not fire on chunked reads, changing poll output, or steady work across files", async () => {
		const lines = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
		const files = Object.fromEntries(
			Array.from({ length: 20 }, (_, i) => [`src/m${i}.ts`, `export const m${i} = ${i};\n`]),
		);
		const repo = makeGitRepo({ "big.txt": lines, ...files });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
		});
		const steps = [
			...Array.from({ length: 8 }, (_, i) => call("read", { path: "big.txt", offset: i * 50 + 1, limit: 50 })),
			...Array.from({ length: 8 }, (_, i) => call("bash", { command: `echo progress ${i * 10}%` })),
			...Array.from({ length: 20 }, (_, i) => call("read", { path: `src/m${i}.ts` })),
			fauxAssistantMessage("read everything"),
		];
		t.main.setResponses(steps);
		try {
			await t.session.prompt("read through the project");
			await t.session.waitForIdle();
			expect((t.session.sessionManager.getEntries() as any[]).some((e) => e.customType === "watchdog-finding")).toBe(
				false,
			);
		} finally {
			await t.dispose();
		}
	});

	const saying = (text: string, next: ReturnType<typeof call>) =>
		fauxAssistantMessage([fauxText(text), ...(next.content as never[])], { stopReason: "toolUse" });
	const again = "I'll look at status.txt once more to see whether the job has finished.";

	it("sees the model restating itself across turns and steers that in after the next tool result", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "status.txt": "running\n" }),
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { enabled: false } }),
		});
		const seen: string[] = [];
		t.main.setResponses([
			...Array.from({ length: 4 }, () => saying(again, poll())),
			(ctx: unknown) => (seen.push(all(ctx)), call("write", { path: "status.txt", content: "done\n" })),
			fauxAssistantMessage("finished"),
		]);
		t.reviewer.setResponses([fauxAssistantMessage("clean")]);
		try {
			await t.session.prompt("wait until status.txt says done, then write done");
			await t.session.waitForIdle();
			expect(seen[0]).toMatch(/Concern: Same sentence said in 3 turns, nothing new between\n/);
			expect(seen[0]).toMatch(
				/> "I'll look at status\.txt once more to see whether the job has finished\.", each time after calls that brought no answer/,
			);
			expect(seen[0]).toMatch(/Suggested action, as the watchdog reported it:\n> You have said this before/);
			expect(t.notices.map((n) => n.message)).toContainEqual(
				expect.stringMatching(/^Watchdog: loop resolved: write status\.txt landed \(Same sentence said in 3 turns/),
			);
		} finally {
			await t.dispose();
		}
	});

	it("never raises a restatement at a stop: the run ends without a loop finding", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "status.txt": "running\n" }),
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { enabled: false } }),
		});
		t.main.setResponses([
			...Array.from({ length: 3 }, () => saying(again, poll())),
			fauxAssistantMessage(again),
			fauxAssistantMessage("unused"),
		]);
		try {
			await t.session.prompt("wait until status.txt says done");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(4);
			expect((t.session.sessionManager.getEntries() as any[]).some((e) => e.customType === "watchdog-finding")).toBe(
				false,
			);
		} finally {
			await t.dispose();
		}
	});
});
