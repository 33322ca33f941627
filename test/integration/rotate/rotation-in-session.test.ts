// Model rotation in a real in-process Pi session: the faux main model ends a run on a usage
// limit, and the session switches to the next configured model, whose first request carries the
// resume note; cooldown, a run that never loops through the list, no healthy model left, the
// transient 429 that must not rotate (Pi's retry succeeding, or no account-limit wording),
// policy handsoff and off, the reviewer's own limit, status and history.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { textOf } from "../../support/openai-server.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

const SPARES = [
	{ provider: "spare", models: [{ id: "spare-1", reasoning: true }] },
	{ provider: "spare2", models: [{ id: "spare-2" }] },
];
const limit = (errorMessage: string) => fauxAssistantMessage("", { stopReason: "error", errorMessage });
const USAGE_LIMIT = "429 You have reached your usage limit for this billing period";

type Ctx = { messages: Array<{ role: string; content: unknown }> };
/** A reply that records the text of the last message the model was sent. */
const answer =
	(seen: string[], text: string): FauxResponseStep =>
	(ctx: unknown) => {
		const messages = (ctx as Ctx).messages;
		seen.push(textOf(messages[messages.length - 1]?.content));
		return fauxAssistantMessage(text);
	};

function settings(rotate: Record<string, unknown>, extra: Record<string, unknown> = {}) {
	return wd({
		enabled: true,
		main: { model: "faux-reviewer/reviewer-model" },
		lsp: { enabled: false },
		rotate: { enabled: true, ...rotate },
		...extra,
	});
}

async function session(
	rotate: Record<string, unknown>,
	extra: Record<string, unknown> = {},
	pi: Record<string, unknown> = {},
): Promise<TestSession> {
	return startSession({
		cwd: makeGitRepo({ "a.txt": "a\n" }),
		userSettings: { ...settings(rotate, extra), ...pi },
		extraProviders: SPARES,
	});
}

const model = (t: TestSession) => `${t.session.model?.provider}/${t.session.model?.id}`;
const rotations = (t: TestSession) =>
	readFileSync(join(t.agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((e) => e.kind === "rotate");
const warnings = (t: TestSession) => t.notices.filter((n) => /^Watchdog: /.test(n.message)).map((n) => n.message);

describe("rotation after a usage limit", () => {
	it.each([
		"429 You exceeded your current quota, please check your plan and billing details.",
		'429 {"error":{"type":"insufficient_quota","message":"insufficient_quota"}}',
		"Claude AI usage limit reached|1767225600",
		"You've hit your weekly limit · resets Mon 9:00am",
		"403 Your credit balance is too low to access the Anthropic API.",
	])("switches to the next model on %s and continues with the resume note", async (message) => {
		const t = await session({ models: ["spare/spare-1", "spare2/spare-2"] });
		const seen: string[] = [];
		t.main.setResponses([limit(message), fauxAssistantMessage("unused")]);
		t.extra[0].setResponses([answer(seen, "Resumed: the summary is done.")]);
		try {
			await t.session.prompt("summarise a.txt in one line");
			await t.session.waitForIdle();
			expect(model(t)).toBe("spare/spare-1");
			expect(t.main.state.callCount).toBe(1);
			expect(t.extra[0].state.callCount).toBe(1);
			expect(t.extra[1].state.callCount).toBe(0);
			// The new model's first request ends with the resume note: what changed, why, and the task.
			expect(seen[0]).toMatch(
				/^The watchdog switched this session's model from faux\/main-model to spare\/spare-1: the last request to faux\/main-model failed on an account or usage limit\./,
			);
			expect(seen[0]).toContain(`> ${message}`);
			expect(seen[0]).toMatch(
				/What you were doing \(the user's latest request in this session\):\n> summarise a\.txt in one line/,
			);
			expect(t.session.getLastAssistantText()).toBe("Resumed: the summary is done.");
			expect(warnings(t)).toEqual([
				expect.stringMatching(
					/^Watchdog: faux\/main-model stopped on an account or usage limit \(.*\)\. Switched this session to spare\/spare-1 and continued\.$/,
				),
			]);
			expect(rotations(t)).toEqual([
				expect.objectContaining({
					outcome: "rotated",
					from: "faux/main-model",
					to: "spare/spare-1",
					error: message,
					reason: "an account or usage limit",
				}),
			]);
		} finally {
			await t.dispose();
		}
	});

	it("rotates on a retry-after longer than Pi waits, and sets a target's thinking level", async () => {
		const t = await session({ models: ["spare/spare-1:high"] });
		const seen: string[] = [];
		t.main.setResponses([limit("Server requested 7200s retry delay (max: 60s). 429 Too Many Requests")]);
		t.extra[0].setResponses([answer(seen, "ok")]);
		try {
			await t.session.prompt("go on");
			await t.session.waitForIdle();
			expect(model(t)).toBe("spare/spare-1");
			expect(t.session.thinkingLevel).toBe("high");
			expect(seen[0]).toMatch(/failed on a retry-after of 7200 s, longer than Pi waits \(60 s\)/);
		} finally {
			await t.dispose();
		}
	});

	it("rotates at most once per cooldown: a second limit is flagged, not rotated, and says so", async () => {
		const t = await session({ models: ["spare/spare-1", "spare2/spare-2"], cooldownMs: 600_000 });
		t.main.setResponses([limit(USAGE_LIMIT)]);
		t.extra[0].setResponses([limit("usage limit reached for spare")]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect(model(t)).toBe("spare/spare-1");
			expect(t.extra[1].state.callCount).toBe(0);
			expect(warnings(t)[1]).toMatch(
				/^Watchdog: spare\/spare-1 stopped on an account or usage limit \(usage limit reached for spare\)\. Not rotating: in cooldown: the last rotation was 0 s ago \(rotate\.cooldownMs 600000\)\.$/,
			);
			expect(rotations(t).map((r) => `${r.outcome} ${r.from} ${r.to ?? ""}`.trim())).toEqual([
				"rotated faux/main-model spare/spare-1",
				"not rotated spare/spare-1",
			]);
			const status = (await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Rotation:\n {2}on: spare\/spare-1 → spare2\/spare-2; at most one rotation per 10 min/);
			expect(status).toMatch(/cooldown: the last rotation was 0 s ago/);
			expect(status).toMatch(/not rotated from spare\/spare-1 \(in cooldown.*\): usage limit reached for spare/);
			expect(status).toMatch(/faux\/main-model → spare\/spare-1: 429 You have reached your usage limit/);
			const brief = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(brief).toMatch(/^Rotation: on, 2 model\(s\); last .* not rotated from spare\/spare-1/m);
		} finally {
			await t.dispose();
		}
	});

	it("never loops through the list in one run, even with no cooldown", async () => {
		const t = await session({ models: ["spare/spare-1", "spare2/spare-2", "faux/main-model"], cooldownMs: 0 });
		t.main.setResponses([limit(USAGE_LIMIT), fauxAssistantMessage("unused")]);
		t.extra[0].setResponses([limit("weekly limit reached"), fauxAssistantMessage("unused")]);
		t.extra[1].setResponses([limit("insufficient_quota"), fauxAssistantMessage("unused")]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect([t.main.state.callCount, t.extra[0].state.callCount, t.extra[1].state.callCount]).toEqual([1, 1, 1]);
			expect(model(t)).toBe("spare2/spare-2");
			const last = rotations(t).at(-1);
			expect(last).toMatchObject({
				outcome: "not rotated",
				from: "spare2/spare-2",
				reason: "no healthy model left in rotate.models",
			});
			expect(last.skipped).toBe(
				"faux/main-model: hit a limit earlier in this run; spare/spare-1: hit a limit earlier in this run; spare2/spare-2: same as current",
			);
		} finally {
			await t.dispose();
		}
	});

	it("with no healthy model left, switches nothing and says what was tried and why", async () => {
		const t = await session({ models: ["faux/main-model", "nope/unknown-1", "anthropic/claude-opus-4-5"] });
		t.main.setResponses([limit(USAGE_LIMIT), fauxAssistantMessage("unused")]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect(model(t)).toBe("faux/main-model");
			expect(t.main.state.callCount).toBe(1);
			const [notice] = warnings(t);
			expect(notice).toMatch(/Not rotating: no healthy model left in rotate\.models\. Tried: /);
			expect(notice).toMatch(
				/nope\/unknown-1: unknown model \(Unknown model nope\/unknown-1: Pi knows no provider "nope"\.\)/,
			);
			expect(notice).toMatch(
				/anthropic\/claude-opus-4-5: no credentials \(Model anthropic\/claude-opus-4-5 is known, but provider "anthropic" has no credentials configured\.\)/,
			);
			expect(notice).toMatch(/faux\/main-model: same as current/);
			const history = (await t.command("/subagents-watchdog history --kind rotate")).map((n) => n.message).join("\n");
			expect(history).toMatch(
				/rotate {2}rotate {2}not rotated from faux\/main-model: no healthy model left in rotate\.models · error: 429 You have reached your usage limit.* · passed over: faux\/main-model: same as current; nope\/unknown-1: unknown model/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("does not rotate on a transient 429 that Pi's own retry got past", async () => {
		const t = await session(
			{ models: ["spare/spare-1"] },
			{},
			{ retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } },
		);
		t.main.setResponses([limit("429 Too Many Requests"), fauxAssistantMessage("Done after a retry.")]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect(model(t)).toBe("faux/main-model");
			expect(t.main.state.callCount).toBe(2);
			expect(t.extra[0].state.callCount).toBe(0);
			expect(t.session.getLastAssistantText()).toBe("Done after a retry.");
			expect(warnings(t)).toEqual([]);
		} finally {
			await t.dispose();
		}
	});

	it("does not rotate on a 429 with no account-limit wording that outlived Pi's retries; history says why", async () => {
		const t = await session(
			{ models: ["spare/spare-1"] },
			{},
			{ retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 } },
		);
		t.main.setResponses([
			limit("429 Too Many Requests"),
			limit("429 Too Many Requests"),
			fauxAssistantMessage("unused"),
		]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect(model(t)).toBe("faux/main-model");
			expect(t.main.state.callCount).toBe(2);
			expect(t.extra[0].state.callCount).toBe(0);
			expect(warnings(t)).toEqual([]);
			expect(rotations(t)).toEqual([
				expect.objectContaining({
					outcome: "not rotated",
					from: "faux/main-model",
					reason: expect.stringMatching(/^not an account limit: a rate limit/),
				}),
			]);
		} finally {
			await t.dispose();
		}
	});

	it.each([
		["handsoff", /Not rotating: policy handsoff: the watchdog flags, and never rotates\./],
		["off", undefined],
	])("policy %s never rotates", async (policy, notice) => {
		const t = await session({ models: ["spare/spare-1"] }, { idle: { policy } });
		t.main.setResponses([limit(USAGE_LIMIT), fauxAssistantMessage("unused")]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect(model(t)).toBe("faux/main-model");
			expect(t.extra[0].state.callCount).toBe(0);
			if (notice) expect(warnings(t)).toEqual([expect.stringMatching(notice)]);
			else expect(warnings(t)).toEqual([]);
			expect(rotations(t)).toEqual([
				expect.objectContaining({ outcome: "not rotated", reason: expect.stringMatching(`^policy ${policy}`) }),
			]);
		} finally {
			await t.dispose();
		}
	});

	it("never rotates for the reviewer's own usage limit: the review fails and the user is told", async () => {
		const t = await session({ models: ["spare/spare-1"] });
		t.main.setResponses([
			fauxAssistantMessage([fauxToolCall("write", { path: "b.txt", content: "b\n" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("Wrote b.txt."),
		]);
		t.reviewer.setResponses([limit(USAGE_LIMIT)]);
		try {
			await t.session.prompt("write b.txt");
			await t.session.waitForIdle();
			expect(model(t)).toBe("faux/main-model");
			expect(t.extra[0].state.callCount).toBe(0);
			expect(t.notices.map((n) => n.message).join("\n")).toMatch(
				/review failed \(quota\): 429 You have reached your usage limit/,
			);
			expect(rotations(t)).toEqual([]);
		} finally {
			await t.dispose();
		}
	});

	it("is off unless rotate.enabled", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "a.txt": "a\n" }),
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				lsp: { enabled: false },
				rotate: { models: ["spare/spare-1"] },
			}),
			extraProviders: SPARES,
		});
		t.main.setResponses([limit(USAGE_LIMIT)]);
		try {
			await t.session.prompt("do the work");
			await t.session.waitForIdle();
			expect(model(t)).toBe("faux/main-model");
			expect(warnings(t)).toEqual([]);
		} finally {
			await t.dispose();
		}
	});

	it("remembers its rotations when the session is resumed: status shows them and the cooldown holds", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const sessionDir = join(repo, "..", `${repo.split("/").pop()}-sessions`);
		const userSettings = settings({ models: ["spare/spare-1", "spare2/spare-2"], cooldownMs: 600_000 });
		const first = await startSession({
			cwd: repo,
			userSettings,
			extraProviders: SPARES,
			sessionManager: SessionManager.create(repo, sessionDir),
		});
		first.main.setResponses([limit(USAGE_LIMIT)]);
		first.extra[0].setResponses([fauxAssistantMessage("resumed")]);
		let file: string | undefined;
		try {
			await first.session.prompt("do the work");
			await first.session.waitForIdle();
			expect(model(first)).toBe("spare/spare-1");
			file = first.session.sessionManager.getSessionFile();
		} finally {
			await first.dispose();
		}
		const again = await startSession({
			cwd: repo,
			agentDir: first.agentDir,
			userSettings,
			extraProviders: SPARES,
			sessionManager: SessionManager.open(file as string, sessionDir),
		});
		try {
			const status = (await again.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(status).toMatch(/faux\/main-model → spare\/spare-1: 429 You have reached your usage limit/);
			await again.session.setModel(again.main.getModel());
			again.main.setResponses([limit(USAGE_LIMIT)]);
			await again.session.prompt("more work");
			await again.session.waitForIdle();
			expect(model(again)).toBe("faux/main-model");
			expect(warnings(again).at(-1)).toMatch(/Not rotating: in cooldown: the last rotation was \d+ s ago/);
		} finally {
			await again.dispose();
		}
	});
});
