// The live check: one minimal request to the reviewer model, so a wrong key or a dead endpoint
// shows before a review needs it. The call is thin; what it found is formatted by
// `formatLiveCheck`, which is pure.
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import { classifyFailure, type FailureKind } from "./failure.ts";
import type { Thinking } from "./model-ref.ts";
import { checkReviewer, type Registry, type ReviewerChoice } from "./reviewer-model.ts";

export const LIVE_CHECK_TIMEOUT_MS = 20_000;
/** Enough for a one-word answer; Pi adds the thinking budget on top where the API needs it. */
export const LIVE_CHECK_MAX_TOKENS = 16;
const PROMPT = "Reply with the single word: ok";

export type LiveCheck =
	/** The model could not be called at all (unknown, no credentials): the offline check's lines. */
	| { status: "not-run"; lines: string[] }
	| { status: "answered"; ref: string; requested: Thinking; thinking: Thinking; latencyMs: number; stopReason: string }
	| {
			status: "failed";
			ref: string;
			requested: Thinking;
			thinking: Thinking;
			latencyMs: number;
			kind: FailureKind;
			message: string;
			timeoutMs: number;
	  };

/** Resolves the reviewer, then makes one request under a deadline. Never throws. */
export async function liveCheck(
	registry: Registry,
	choice: ReviewerChoice,
	timeoutMs = LIVE_CHECK_TIMEOUT_MS,
): Promise<LiveCheck> {
	const offline = await checkReviewer(registry, choice);
	const model = offline.ok && choice.provider && choice.id ? registry.find(choice.provider, choice.id) : undefined;
	if (!offline.ok || !model) return { status: "not-run", lines: offline.lines };
	const ref = `${model.provider}/${model.id}`;
	const thinking = clampThinkingLevel(model, choice.thinking) as Thinking;
	const base = { ref, requested: choice.thinking, thinking };
	const deadline = AbortSignal.timeout(timeoutMs);
	const started = performance.now();
	const elapsed = () => Math.round(performance.now() - started);
	const timedOut = () => ({
		status: "failed" as const,
		...base,
		latencyMs: elapsed(),
		kind: "timeout" as const,
		message: `no answer within ${seconds(timeoutMs)}`,
		timeoutMs,
	});
	try {
		const call = registry
			.streamSimple(
				model,
				{ messages: [{ role: "user", content: PROMPT, timestamp: Date.now() }] },
				{ ...(thinking !== "off" ? { reasoning: thinking } : {}), signal: deadline, maxTokens: LIVE_CHECK_MAX_TOKENS },
			)
			.result();
		const reply = await Promise.race([call, whenAborted(deadline)]);
		if (!reply || deadline.aborted) return timedOut();
		if (reply.stopReason === "error" || reply.stopReason === "aborted") {
			return {
				status: "failed",
				...base,
				latencyMs: elapsed(),
				...classifyFailure(reply.errorMessage ?? reply.stopReason),
				timeoutMs,
			};
		}
		return { status: "answered", ...base, latencyMs: elapsed(), stopReason: reply.stopReason };
	} catch (error) {
		if (deadline.aborted) return timedOut();
		return {
			status: "failed",
			...base,
			latencyMs: elapsed(),
			...classifyFailure(error instanceof Error ? error.message : String(error)),
			timeoutMs,
		};
	}
}

const HINTS: Record<FailureKind, (provider: string) => string | undefined> = {
	"no-auth": (p) => `The provider refused the credentials: check the API key, or log in again with /login ${p}.`,
	"rate-limit": () => "The provider is limiting requests; reviews will fail the same way until it lets up.",
	quota: () => "The account has run out of quota or credit.",
	timeout: () => "Check the provider's endpoint (baseUrl in models.json) and the network.",
	"unknown-model": () => undefined,
	provider: () => undefined,
};

/** What a user is shown: one line when the model answered, the exact error and a hint when not. */
export function formatLiveCheck(check: LiveCheck): { ok: boolean; lines: string[] } {
	if (check.status === "not-run") return { ok: false, lines: [...check.lines, "No request was made."] };
	const level =
		check.thinking === check.requested
			? `thinking ${check.thinking}`
			: `thinking ${check.thinking} (${check.requested} was asked for; this model does not support it)`;
	if (check.status === "answered") {
		const cut =
			check.stopReason === "length" ? " (its answer was cut at the token limit, as expected for a check)" : "";
		return {
			ok: true,
			lines: [`Model ${check.ref} answered a test request in ${duration(check.latencyMs)}, at ${level}${cut}.`],
		};
	}
	const provider = check.ref.split("/")[0];
	const hint = HINTS[check.kind](provider);
	return {
		ok: false,
		lines: [
			`Model ${check.ref} resolves and has credentials, but a test request at ${level} ` +
				`failed after ${duration(check.latencyMs)} (${check.kind}):`,
			check.message.replace(/^/gm, "  "),
			...(hint ? [hint] : []),
		],
	};
}

export function duration(ms: number): string {
	return ms < 1000 ? `${ms} ms` : seconds(ms);
}

function seconds(ms: number): string {
	const s = ms / 1000;
	return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function whenAborted(signal: AbortSignal): Promise<undefined> {
	return new Promise((resolve) => {
		if (signal.aborted) resolve(undefined);
		else signal.addEventListener("abort", () => resolve(undefined), { once: true });
	});
}
