// What kind of failure a model call ended in, read from the provider's error text. Shared by
// the review, the live check and rotation, so all three name a failure the same way.

export type FailureKind = "unknown-model" | "no-auth" | "rate-limit" | "quota" | "timeout" | "provider";

/**
 * Wording of an account or usage limit: the account cannot make requests until a quota resets
 * or someone pays, whatever the HTTP status (providers send these as 429 or 403 as often as
 * not). A superset of what Pi itself refuses to retry (pi-ai's non-retryable limit patterns).
 */
const ACCOUNT_LIMIT = new RegExp(
	[
		"usage[\\s_-]?limit", // "usage limit reached", usage_limit_reached, GoUsageLimitError
		// "weekly limit", "5-hour limit"
		"(weekly|daily|monthly|hourly|\\d+[\\s-]?hours?|session|plan|spend(ing)?|budget)[\\s_-]+(usage[\\s_-]+)?limit",
		"hit your (?![\\w\\s-]*rate)[\\w\\s-]{0,20}limit", // "You've hit your limit · resets 3pm"
		"quota", // insufficient_quota, "exceeded your current quota"
		"insufficient[\\s_-]?(funds|balance|credits?)",
		"credit[\\s_-]?balance", // "Your credit balance is too low"
		"out of (credits?|budget)",
		"\\bno credits?( left| remaining)?\\b",
		"billing",
		"available balance",
		"payment required|^\\s*402\\b", // the status leads the SDK's message
		'"code"\\s*:\\s*"?1308(?![0-9])', // Zhipu's plan limit, sent as a 429
	].join("|"),
	"i",
);

/** Pi's provider retry gave up because the server asked for a longer wait than its budget. */
const LONG_RETRY_AFTER = /Server requested (\d+)s retry delay \(max: (\d+)s\)/i;

export function isAccountLimit(message: string): boolean {
	return ACCOUNT_LIMIT.test(message);
}

/** The wait a server asked for and Pi's limit on it, when Pi refused to wait that long. */
export function longRetryAfter(message: string): { requestedS: number; maxS: number } | undefined {
	const m = LONG_RETRY_AFTER.exec(message);
	return m ? { requestedS: Number(m[1]), maxS: Number(m[2]) } : undefined;
}

export function classifyFailure(message: string): { kind: FailureKind; message: string } {
	// An account limit first: "429 insufficient_quota" is no rate limit that passes by itself.
	if (isAccountLimit(message)) return { kind: "quota", message };
	if (/\b429\b|rate.?limit|too many requests/i.test(message)) return { kind: "rate-limit", message };
	if (/\b40[13]\b|unauthori[sz]ed|invalid.{0,10}api.?key|authentication|forbidden/i.test(message))
		return { kind: "no-auth", message };
	if (/timed? ?out|timeout|deadline/i.test(message)) return { kind: "timeout", message };
	return { kind: "provider", message };
}
