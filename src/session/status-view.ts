// The three levels of `/subagents-watchdog status`: the short one (at most 20 lines), `--all`
// (also the settings you changed and each capability's details) and `--settings` (also every
// default). Gathers what the monitors report; the formatting is pure (src/status/).
import { existsSync } from "node:fs";
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import { sourceLabel } from "../findings/index.ts";
import { lspBrief, lspSection } from "../lsp/index.ts";
import { describeChoice } from "../models/index.ts";
import { TRUST_COMMAND } from "../settings/index.ts";
import { baselineSections, formatBrief, formatStatus, onOff, type StatusSection } from "../status/index.ts";
import type { RunMonitors } from "./settle.ts";
import { unsupportedSettings } from "./settings-notice.ts";
import type { Ctx, WatchdogSession } from "./watchdog-session.ts";

export type StatusLevel = "brief" | "all" | "settings";


export function statusView(session: WatchdogSession, run: RunMonitors, ctx: Ctx, level: StatusLevel): string {
	const resolved = session.settings(ctx);
	const s = resolved.settings;
	if (level !== "brief") {
		const project = session.project(ctx);
		return formatStatus({
			resolved,
			reviewer: session.reviewer(ctx),
			files: {
				user: session.store.userPath(),
				project: session.store.projectPath(project.cwd),
				projectTrusted: project.trusted,
				userExists: existsSync(session.store.userPath()),
				...(project.trusted ? { projectExists: existsSync(session.store.projectPath(project.cwd)) } : {}),
			},
			trust: { why: session.trust.snapshot.why, held: session.trust.held.list(), command: TRUST_COMMAND },
			sections: [
				...withLive(baselineSections(s), [
					...session.review.sections(resolved.enabled),
					session.sink.section(),
					childrenSection(baselineSections(s), session),
					lspSection(s.lsp.enabled, run.lsp?.status()),
					session.loops.section(resolved.enabled, s.loops.enabled),
					session.evidence.section(s.idle.policy, s.idle, session.options.role),
					session.launchRules.section(s.rules),
					session.activity.section(session.clarifying(ctx)),
					session.rotation.section(s.rotate, s.idle.policy),
				]),
				session.subtree.section(),
				...session.settingsWatch.section(),
				...unsupportedSection(unsupportedSettings(resolved, session.options.role)),
			],
			defaults: level === "settings",
		});
	}
	const { findings, earlier } = session.sink.promptFindings();
	const every = (n: number | false) => (n ? `every ${n} tool results` : "off");
	return formatBrief({
		resolved,
		onOff: onOff(resolved),
		reviewer: reviewerLine(session, ctx),
		pending: session.review.pendingLine(),
		lastReview: session.review.lastReviewLine(),
		findings: findings.map((f) => ({ at: f.finding.at, severity: f.finding.severity, fate: f.fate, source: sourceLabel(f.finding), summary: f.finding.summary, times: f.times, n: f.n })),
		earlier,
		lines: [
			lspBrief(s.lsp.enabled, run.lsp?.status()),
			session.loops.brief(resolved.enabled, s.loops.enabled),
			session.evidence.brief(s.idle.policy),
			...(session.options.role === "main" ? [session.rotation.brief(s.rotate)].filter((l): l is string => l !== undefined) : []),
			...(session.subtree.brief() ? [session.subtree.brief() as string] : []),
			...session.settingsWatch.brief(),
			`Cadence: ${every(s.cadence.everyNTools)} · Children: ${s.children.enabled ? "watchdogs on" : "watchdogs off"}`,
			session.launchRules.brief(s.rules),
			...heldLine(session),
		],
	});
}

/** The footer's word: errors, a held settings change, the last review's outcome, or just on. */
export function footerLabel(session: WatchdogSession, ctx: Ctx): string | undefined {
	const r = session.settings(ctx);
	if (r.errors.length) return "watchdog: settings error";
	if (session.settingsWatch.held().length) return "watchdog: settings change held";
	if (!r.enabled) return undefined;
	if (session.lastOutcome) return session.lastOutcome;
	const failed = session.review.lastFailureKind();
	return failed ? `watchdog: review failed (${failed})` : "watchdog on";
}

function heldLine(session: WatchdogSession): string[] {
	const held = session.trust.held.list();
	return held.length ? [`Held back: ${held.map((h) => h.path).join(", ")} (changed or added after the trust decision; ${TRUST_COMMAND} allows them)`] : [];
}

/** The reviewer and the thinking it really runs at (a model without reasoning runs at off). */
function reviewerLine(session: WatchdogSession, ctx: Ctx): string {
	const choice = session.reviewer(ctx);
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
/** The Children section: the configuration, then what the children found. */
function childrenSection(baseline: StatusSection[], session: WatchdogSession): StatusSection {
	const config = baseline.find((b) => b.title === "Children")?.lines ?? [];
	return { title: "Children", lines: [...config.filter((l) => l !== "no child findings this session"), ...session.children.lines()] };
}

function withLive(baseline: StatusSection[], live: StatusSection[]): StatusSection[] {
	return baseline.map((section) => live.find((l) => l.title === section.title) ?? section);
}

/** pi-subagents' settings that load but do nothing here (also announced once at start). */
function unsupportedSection(lines: string[]): StatusSection[] {
	return lines.length ? [{ title: "Not supported here (pi-subagents settings)", lines }] : [];
}
