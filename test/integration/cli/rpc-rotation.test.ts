// Model rotation through the real `pi --mode rpc` against the scripted server: a 429 whose
// retry-after fits Pi's provider retry passes without rotating; a usage-limit body switches the
// session to the next model in rotate.models, whose first request carries the resume note; a
// second limit within the cooldown is flagged, not rotated; status and history show both.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRequest, type Reply, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

describe("pi --mode rpc: rotation after a usage limit", () => {
	let cli: CliSession;
	/** What each model answers next (the last entry repeats). */
	const replies: Record<string, Reply[]> = { main: [], spare: [] };
	const script = (request: ChatRequest): Reply => {
		if (request.model === "reviewer") return { text: "ok" };
		const queue = replies[request.model] ?? [];
		return (queue.length > 1 ? queue.shift() : queue[0]) ?? { text: `${request.model} answered` };
	};
	const say = async (text: string) => (await cli.run(text, 60_000)).map((n) => n.message ?? "");
	const requestsSince = (n: number) => cli.server.requests.slice(n).filter((r) => r.model !== "reviewer");

	beforeAll(async () => {
		cli = await startCli({
			script,
			models: [{ id: "main" }, { id: "spare" }, { id: "reviewer" }],
			userSettings: {
				...wd({
					enabled: true,
					main: { model: "local/reviewer" },
					lsp: { enabled: false },
					rotate: { enabled: true, models: ["local/missing", "local/spare"] },
				}),
				// The provider request retries once, honouring a retry-after of up to 5 s; no agent-level retry.
				retry: { enabled: false, provider: { maxRetries: 1, maxRetryDelayMs: 5000 } },
			},
		});
	});
	afterAll(async () => {
		await cli?.stop();
	});

	it("a 429 whose retry-after fits the request's retry budget does not rotate", async () => {
		replies.main = [
			{ status: 429, error: "Rate limit reached for requests", type: "requests", headers: { "retry-after": "1" } },
			{ text: "main answered after the wait" },
		];
		const before = cli.server.requests.length;
		const notices = await say("first task");
		expect(requestsSince(before).map((r) => r.model)).toEqual(["main", "main"]);
		expect(await cli.client.getLastAssistantText()).toBe("main answered after the wait");
		expect(notices.filter((n) => /rotat/i.test(n))).toEqual([]);
		expect((await cli.client.getState()).model?.id).toBe("main");
	});

	it("a usage-limit error switches to the next healthy model and continues with the resume note", async () => {
		replies.main = [
			{ status: 429, error: "You have reached your usage limit for this billing period.", type: "insufficient_quota" },
		];
		replies.spare = [{ text: "Resumed on spare." }];
		const before = cli.server.requests.length;
		const notices = await say("refactor the parser");
		// The provider request retried the 429 once (it cannot tell a quota from a throttle); Pi's
		// agent-level retry never repeats an account limit; then the watchdog switched.
		expect(requestsSince(before).map((r) => r.model)).toEqual(["main", "main", "spare"]);
		const resume = textOf(requestsSince(before)[2].messages.at(-1)?.content);
		expect(resume).toMatch(
			/^The watchdog switched this session's model from local\/main to local\/spare: the last request to local\/main failed on an account or usage limit\. The provider said:\n> 429.*You have reached your usage limit for this billing period\./,
		);
		expect(resume).toContain("> refactor the parser");
		// The failed turn is not replayed to the new model: the first task and its answer, the prompt, then the note.
		expect(requestsSince(before)[2].messages.map((m) => m.role)).toEqual([
			"system",
			"user",
			"assistant",
			"user",
			"user",
		]);
		expect(await cli.client.getLastAssistantText()).toBe("Resumed on spare.");
		expect((await cli.client.getState()).model?.id).toBe("spare");
		expect(notices).toContainEqual(
			expect.stringMatching(
				/^Watchdog: local\/main stopped on an account or usage limit \(429.*You have reached your usage limit.*\)\. Switched this session to local\/spare and continued\. Passed over: local\/missing: unknown model/,
			),
		);
	});

	it("a second limit within the cooldown is flagged and not rotated; status and history show both", async () => {
		replies.spare = [{ status: 429, error: "Too Many Requests", headers: { "retry-after": "3600" } }];
		const before = cli.server.requests.length;
		const notices = await say("go on");
		// Pi did not wait an hour: the provider retry gave up at once, and nothing switched.
		expect(requestsSince(before).map((r) => r.model)).toEqual(["spare"]);
		expect((await cli.client.getState()).model?.id).toBe("spare");
		expect(notices).toContainEqual(
			expect.stringMatching(
				/^Watchdog: local\/spare stopped on a retry-after of 3600 s, longer than Pi waits \(5 s\) .*Not rotating: in cooldown: the last rotation was \d+ s ago \(rotate\.cooldownMs 600000\)\.$/,
			),
		);
		const status = (await say("/subagents-watchdog status --all")).join("\n");
		expect(status).toMatch(
			/Rotation:\n {2}on: local\/missing → local\/spare; at most one rotation per 10 min\n {2}cooldown: /,
		);
		expect(status).toMatch(/not rotated from local\/spare \(in cooldown.*\): Server requested 3600s retry delay/);
		expect(status).toMatch(
			/local\/main → local\/spare: 429.*You have reached your usage limit.* \[passed over local\/missing: unknown model/,
		);
		const history = (await say("/subagents-watchdog history --kind rotate")).join("\n");
		expect(history).toMatch(
			/: 2 events, newest first\n.* rotate {2}rotate {2}not rotated from local\/spare: in cooldown.*\n.* rotate {2}rotate {2}local\/main → local\/spare \(an account or usage limit\) · error: 429.*You have reached your usage limit.* · passed over: local\/missing: unknown model/,
		);
	});
});
