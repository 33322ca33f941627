// What kind of failure a model call ended in, read from the provider's error text. Shared by
// the review and the live check so both name a failure the same way.

export type FailureKind = "unknown-model" | "no-auth" | "rate-limit" | "quota" | "timeout" | "provider";

export function classifyFailure(message: string): { kind: FailureKind; message: string } {
	if (/\b429\b|rate.?limit|too many requests/i.test(message)) return { kind: "rate-limit", message };
	if (/quota|insufficient.?(funds|balance|credit)|billing|usage limit|credit balance/i.test(message)) return { kind: "quota", message };
	if (/\b40[13]\b|unauthori[sz]ed|invalid.{0,10}api.?key|authentication|forbidden/i.test(message)) return { kind: "no-auth", message };
	if (/timed? ?out|timeout|deadline/i.test(message)) return { kind: "timeout", message };
	return { kind: "provider", message };
}
