// Did a run end on an account or usage limit? Read from the run's last assistant message, where
// Pi records a provider error (`stopReason: "error"`, `errorMessage`). Pure.
//
// Pi 1.6 retries at two levels before a run settles, so the watchdog only ever sees what the
// retries left over: the provider request itself (`retry.provider.maxRetries`, 0 by default;
// it honours a server's retry-after up to `retry.provider.maxRetryDelayMs`, 60 s, and fails at
// once with "Server requested N s retry delay (max: M s)" when asked to wait longer), and the
// agent's auto-retry (`retry.enabled`, `retry.maxRetries` 3, backoff from `retry.baseDelayMs`),
// which repeats the turn on transient errors (429, rate limit, overloaded, 5xx) but never on
// account limits (insufficient_quota, billing, usage limit). A retry that succeeded leaves no
// error behind; a transient rate limit that outlived the retries is still transient.
import { classifyFailure, isAccountLimit, longRetryAfter } from "../models/index.ts";

export type LimitVerdict =
	/** Rotate: the account cannot go on with this model for now. */
	| { kind: "limit"; why: string; error: string }
	/** Do not rotate: a rate limit that passes by itself. */
	| { kind: "transient"; why: string; error: string };

interface AssistantLike {
	role?: string;
	stopReason?: string;
	errorMessage?: string;
}

/** What the error ending a run means for rotation; undefined when the run did not end on a limit of any kind. */
export function limitOf(last: AssistantLike | undefined): LimitVerdict | undefined {
	if (last?.stopReason !== "error") return undefined;
	const error = (last.errorMessage ?? "").trim();
	if (!error) return undefined;
	const wait = longRetryAfter(error);
	if (wait)
		return {
			kind: "limit",
			why: `a retry-after of ${wait.requestedS} s, longer than Pi waits (${wait.maxS} s)`,
			error,
		};
	if (isAccountLimit(error)) return { kind: "limit", why: "an account or usage limit", error };
	if (classifyFailure(error).kind === "rate-limit")
		return {
			kind: "transient",
			why: "a rate limit with no account-limit wording, which passes by itself (Pi's own retry handles it)",
			error,
		};
	return undefined;
}

/** The last assistant message on a session branch (entries as Pi's session manager returns them). */
export function lastAssistant(entries: ReadonlyArray<{ type: string; message?: unknown }>): AssistantLike | undefined {
	for (let i = entries.length - 1; i >= 0; i--) {
		const e = entries[i];
		const message = e.type === "message" ? (e.message as AssistantLike | undefined) : undefined;
		if (message?.role === "assistant") return message;
	}
	return undefined;
}
