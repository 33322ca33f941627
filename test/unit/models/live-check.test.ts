// The live check against a stand-in registry: the one request it makes, its deadline, and how
// each outcome reads.
import { describe, expect, it } from "vitest";
import { formatLiveCheck, LIVE_CHECK_MAX_TOKENS, liveCheck, type LiveCheck } from "../../../src/models/live-check.ts";
import type { Registry, ReviewerChoice } from "../../../src/models/reviewer-model.ts";

interface Call {
	model: string;
	context: any;
	options: any;
}

/** A registry with one model, answering each call with `answer` (a message, a thrown error, or never). */
function registry(answer: (options: any) => Promise<any>, reasoning = true) {
	const model = {
		provider: "acme",
		id: "gpt-x",
		name: "gpt-x",
		api: "openai-completions",
		reasoning,
		contextWindow: 1000,
		maxTokens: 100,
	};
	const calls: Call[] = [];
	const reg = {
		find: (p: string, id: string) => (p === model.provider && id === model.id ? model : undefined),
		getAll: () => [model],
		getAvailable: () => [model],
		hasConfiguredAuth: () => true,
		getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k" }),
		streamSimple: (m: any, context: any, options: any) => {
			calls.push({ model: `${m.provider}/${m.id}`, context, options });
			return { result: () => answer(options) };
		},
	} as unknown as Registry;
	return { reg, calls };
}

const choice = (thinking: ReviewerChoice["thinking"] = "high", id = "gpt-x"): ReviewerChoice => ({
	kind: "configured",
	provider: "acme",
	id,
	thinking,
});
const reply = (stopReason: string, errorMessage?: string) => async () => ({
	role: "assistant",
	content: [{ type: "text", text: "ok" }],
	stopReason,
	...(errorMessage ? { errorMessage } : {}),
});

describe("the live check", () => {
	it("makes one small request at the configured thinking level, clamped, and times it", async () => {
		const { reg, calls } = registry(reply("stop"));
		const result = await liveCheck(reg, choice("high"));
		expect(result).toMatchObject({
			status: "answered",
			ref: "acme/gpt-x",
			requested: "high",
			thinking: "high",
			stopReason: "stop",
		});
		expect(calls).toHaveLength(1);
		expect(calls[0].options).toMatchObject({ reasoning: "high", maxTokens: LIVE_CHECK_MAX_TOKENS });
		expect(calls[0].options.signal).toBeInstanceOf(AbortSignal);
		expect(calls[0].context.tools).toBeUndefined();
		expect(calls[0].context.messages).toHaveLength(1);

		const plain = registry(reply("length"), false);
		const clamped = await liveCheck(plain.reg, choice("high"));
		expect(clamped).toMatchObject({ status: "answered", requested: "high", thinking: "off" });
		expect(plain.calls[0].options.reasoning).toBeUndefined();
		expect(formatLiveCheck(clamped).lines[0]).toMatch(
			/at thinking off \(high was asked for; this model does not support it\) \(its answer was cut at the token limit/,
		);
	});

	it("classifies a failed request the way a failed review is", async () => {
		const denied = await liveCheck(registry(reply("error", "401 Incorrect API key provided")).reg, choice());
		expect(denied).toMatchObject({ status: "failed", kind: "no-auth", message: "401 Incorrect API key provided" });
		const thrown = await liveCheck(
			registry(async () => {
				throw new Error("You exceeded your current quota");
			}).reg,
			choice(),
		);
		expect(thrown).toMatchObject({ status: "failed", kind: "quota", message: "You exceeded your current quota" });
		const dead = await liveCheck(registry(reply("error", "connect ECONNREFUSED 127.0.0.1:9")).reg, choice());
		expect(dead).toMatchObject({ status: "failed", kind: "provider" });
	});

	it("gives up at the deadline even when the call never settles", async () => {
		const { reg, calls } = registry(() => new Promise(() => {}));
		const started = Date.now();
		const result = await liveCheck(reg, choice(), 200);
		expect(Date.now() - started).toBeLessThan(2000);
		expect(result).toMatchObject({ status: "failed", kind: "timeout", message: "no answer within 0.2 s" });
		expect(calls[0].options.signal.aborted).toBe(true);
		expect(formatLiveCheck(result).lines.at(-1)).toMatch(/Check the provider's endpoint/);
	});

	it("makes no request for a model that cannot be called", async () => {
		const { reg, calls } = registry(reply("stop"));
		const result = await liveCheck(reg, choice("high", "gpt-y"));
		expect(result.status).toBe("not-run");
		expect(calls).toHaveLength(0);
		expect(formatLiveCheck(result)).toEqual({
			ok: false,
			lines: [
				'Unknown model acme/gpt-y: provider "acme" has no model "gpt-y".',
				"Its models: gpt-x.",
				"No request was made.",
			],
		});
	});

	it("reads as one line when it answered, and the exact error with a hint when not", () => {
		const base = { ref: "acme/gpt-x", requested: "medium" as const, thinking: "medium" as const };
		expect(formatLiveCheck({ status: "answered", ...base, latencyMs: 1530, stopReason: "stop" })).toEqual({
			ok: true,
			lines: ["Model acme/gpt-x answered a test request in 1.5 s, at thinking medium."],
		});
		const failed: LiveCheck = {
			status: "failed",
			...base,
			latencyMs: 40,
			kind: "rate-limit",
			message: "429 slow down\nretry later",
			timeoutMs: 20_000,
		};
		expect(formatLiveCheck(failed)).toEqual({
			ok: false,
			lines: [
				"Model acme/gpt-x resolves and has credentials, but a test request at thinking medium failed after 40 ms (rate-limit):",
				"  429 slow down\n  retry later",
				"The provider is limiting requests; reviews will fail the same way until it lets up.",
			],
		});
	});
});
