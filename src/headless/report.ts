// The `--watchdog-report` document (schema 1, described in docs/ci.md): one JSON object per
// run, built from the ledger's history lines, the session's review and verification records
// and the exit decision. Pure: the shell (headless.ts) writes it.
import { type Blocker, pendingAtEnd, type ReviewLike, type VerificationLike } from "./ledger.ts";

export const REPORT_SCHEMA = 1;

export interface ReportInput {
	session: { id: string; file?: string; cwd: string; mode: string };
	startedAt: number;
	endedAt: number;
	enabled: boolean;
	strict: boolean;
	exit: { code: number; reason: string };
	blockers: Blocker[];
	history: { lines: readonly Record<string, unknown>[]; dropped: number };
	reviews: ReviewLike[];
	verifications: Array<VerificationLike & Record<string, unknown>>;
	waited: Array<{ what: string; ms: number; done: boolean }>;
	/** Blockers of sessions this process ran before the last (RPC `new_session`, `switch_session`). */
	earlier: Blocker[];
}

const REVIEW_FIELDS = [
	"at",
	"trigger",
	"outcome",
	"model",
	"thinking",
	"durationMs",
	"tokens",
	"cost",
	"paths",
	"carriedOver",
	"failure",
] as const;
const FINDING_FIELDS = ["at", "source", "importance", "severity", "category", "summary", "evidence", "fate"] as const;

export function buildReport(input: ReportInput): Record<string, unknown> {
	const of = (kind: string) => input.history.lines.filter((l) => l.kind === kind);
	const reviews = of("review").map((l) => pick(l, REVIEW_FIELDS));
	const findings = of("finding").map((l) => pick(l, FINDING_FIELDS));
	return {
		schema: REPORT_SCHEMA,
		generator: "pi-watchdog",
		session: input.session,
		startedAt: new Date(input.startedAt).toISOString(),
		endedAt: new Date(input.endedAt).toISOString(),
		enabled: input.enabled,
		strict: input.strict,
		exit: input.exit,
		blockers: [...input.earlier, ...input.blockers],
		reviews,
		totals: {
			reviews: reviews.length,
			cost: reviews.reduce((sum, r) => sum + (typeof r.cost === "number" ? r.cost : 0), 0),
		},
		findings,
		claims: findings.filter((f) => f.source === "claims"),
		loops: {
			findings: findings.filter((f) => f.source === "loops"),
			resolved: of("loop-resolved").map((l) => String(l.summary ?? "")),
		},
		children: input.verifications.map((v) => ({
			at: typeof v.at === "number" ? new Date(v.at).toISOString() : undefined,
			outcome: v.outcome,
			verdicts: v.verdicts,
			children: v.children.map((c) => ({ id: c.id, label: c.label, verdict: c.verdict })),
			...(typeof v.model === "string" ? { model: v.model, cost: v.cost } : {}),
		})),
		pending: pendingAtEnd(input.reviews),
		failures: of("failure").map((l) => pick(l, ["at", "what", "message"] as const)),
		waited: input.waited,
		...(input.history.dropped ? { historyLinesDropped: input.history.dropped } : {}),
	};
}

function pick<K extends string>(line: Record<string, unknown>, keys: readonly K[]): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const k of keys) if (line[k] !== undefined) out[k] = line[k];
	return out;
}
