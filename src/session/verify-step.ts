// The stopped-subtree verifier as this session builds it: its configuration from the session's
// settings and reviewer, what it finds delivered through the session's sink.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { FindingsSink } from "../findings/index.ts";
import type { ReviewerChoice } from "../models/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { SubtreeVerifier } from "../verify/index.ts";
import type { HistoryCtx, HistoryLine } from "./monitor.ts";

export interface VerifierDeps {
	settings(ctx: ExtensionContext): ResolvedSettings;
	reviewer(ctx: ExtensionContext): ReviewerChoice;
	/** The commit the session's changes are measured from, if any. */
	baseline(): string | null;
	sink: FindingsSink;
	persist(type: string, data: unknown): void;
	record(ctx: HistoryCtx, line: HistoryLine): void;
}

export function subtreeVerifier(deps: VerifierDeps): SubtreeVerifier {
	return new SubtreeVerifier({
		enabled: (ctx) => deps.settings(ctx).enabled,
		config: (ctx) => {
			const s = deps.settings(ctx).settings;
			const choice = deps.reviewer(ctx);
			const model = `${choice.provider ?? ""}/${choice.id ?? ""}`;
			const { severityThreshold, idle } = s;
			const config = { model, thinking: choice.thinking, severityThreshold, policy: idle.policy };
			return { config, timeoutMs: s.agentEndTimeoutMs, choice };
		},
		baseline: deps.baseline,
		deliver: (ctx, findings, idle) => {
			deps.sink.duringRun(ctx, findings, deps.settings(ctx).settings, { verification: true }, idle);
		},
		note: (ctx, text) => deps.sink.note(ctx, text),
		persist: deps.persist,
		record: deps.record,
	});
}
