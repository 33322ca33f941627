// The three levels of `/subagents-watchdog status`: the short one (at most 20 lines), `--all`
// (also the settings you changed and each capability's details) and `--settings` (also every
// default). The monitors' parts in their order; the formatting is pure (src/status/).
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import { type FindingsSink, sourceLabel } from "../findings/index.ts";
import type { ProjectTrust } from "../host/index.ts";
import { describeChoice, type ReviewerChoice } from "../models/index.ts";
import type { ModelReview } from "../review/index.ts";
import { type ResolvedSettings, type SettingsStore, TRUST_COMMAND } from "../settings/index.ts";
import { baselineSections, formatBrief, formatStatus, onOff, type StatusSection } from "../status/index.ts";
import { BUNDLE_FILE, LOADED_FROM, PACKAGE_DIR, RUNS_BUNDLE } from "../util/index.ts";
import type { Ctx, Monitor, StatusView } from "./monitor.ts";

export type StatusLevel = "brief" | "all" | "settings";

/** What status reads besides the monitors: the settings and their files, the reviewer, the review, the findings. */
export interface StatusSource {
	resolved: ResolvedSettings;
	reviewer: ReviewerChoice;
	store: SettingsStore;
	trust: ProjectTrust;
	role: string;
	clarifying: boolean;
	monitors: readonly Monitor[];
	review: Pick<ModelReview, "pendingLine" | "lastReviewLine">;
	sink: Pick<FindingsSink, "promptFindings">;
}

export function statusView(source: StatusSource, ctx: Ctx, level: StatusLevel): string {
	const { resolved, trust } = source;
	const baseline = baselineSections(resolved.settings);
	const { role, clarifying } = source;
	const { enabled, settings } = resolved;
	const view: StatusView = { enabled, settings, role, clarifying, baseline, resolved };
	const parts = source.monitors.map((m) => m.status?.(view) ?? {});
	if (level !== "brief") {
		const live = parts.flatMap((p) => p.sections ?? []);
		const titles = new Set(baseline.map((b) => b.title));
		const userPath = source.store.userPath();
		const projectPath = source.store.projectPath(ctx.cwd);
		return formatStatus({
			resolved,
			reviewer: source.reviewer,
			files: {
				user: userPath,
				project: projectPath,
				projectTrusted: trust.decided,
				userExists: existsSync(userPath),
				...(trust.decided ? { projectExists: existsSync(projectPath) } : {}),
			},
			trust: { why: trust.snapshot.why, held: trust.held.list(), command: TRUST_COMMAND },
			// A live section replaces the baseline section of its title; the others follow in the monitors' order.
			sections: [...withLive(baseline, live), ...live.filter((s) => !titles.has(s.title)), packageSection()],
			defaults: level === "settings",
		});
	}
	const { findings, earlier } = source.sink.promptFindings();
	return formatBrief({
		resolved,
		onOff: onOff(resolved),
		reviewer: reviewerLine(source.reviewer, ctx),
		pending: source.review.pendingLine(),
		lastReview: source.review.lastReviewLine(),
		findings: findings.map(({ finding, fate, times, n }) => {
			const { at, severity, summary } = finding;
			return { at, severity, fate, source: sourceLabel(finding), summary, times, n };
		}),
		earlier,
		lines: parts.flatMap((p) => p.brief ?? []),
	});
}

/** Where the running code came from, so a user who edited the sources can see whether they run. */
function packageSection(): StatusSection {
	const code = RUNS_BUNDLE
		? `prebuilt bundle ${BUNDLE_FILE} (the watchdog: ${relative(PACKAGE_DIR, LOADED_FROM)})`
		: "TypeScript sources (no current bundle; `npm run build` in the package makes one)";
	return { title: "Package", lines: [`Folder: ${PACKAGE_DIR}`, `Code: ${code}`] };
}

/** The reviewer and the thinking it really runs at (a model without reasoning runs at off). */
function reviewerLine(choice: ReviewerChoice, ctx: Ctx): string {
	const described = describeChoice(choice);
	if (!choice.provider || !choice.id) return described;
	try {
		const model = ctx.modelRegistry.find(choice.provider, choice.id);
		if (!model) return `${described} (Pi does not know this model: see check)`;
		const runsAt = clampThinkingLevel(model, choice.thinking as never);
		return runsAt === choice.thinking ? described : `${described} (runs at ${runsAt}: the most this model supports)`;
	} catch {
		return described;
	}
}

/** Live sections replace the baseline section of the same title. */
function withLive(baseline: StatusSection[], live: StatusSection[]): StatusSection[] {
	return baseline.map((section) => live.find((l) => l.title === section.title) ?? section);
}
