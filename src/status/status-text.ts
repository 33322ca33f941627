// The text of `/subagents-watchdog status` (and the `watchdog.status` action): pure formatting
// of the resolved settings, the reviewer in effect, and the sections each capability reports.
import { describeChoice, type ReviewerChoice } from "../models/reviewer-model.ts";
import { forEachLeaf, type ResolvedSettings, type SettingsProblem } from "../settings/resolve.ts";
import type { WatchdogSettings } from "../settings/schema.ts";

export interface StatusSection {
	title: string;
	lines: string[];
}

export interface StatusInput {
	resolved: ResolvedSettings;
	reviewer: ReviewerChoice;
	files: { user: string; project: string; projectTrusted: boolean };
	sections: StatusSection[];
}

export function formatStatus(input: StatusInput): string {
	const { resolved } = input;
	const s = resolved.settings;
	const out: string[] = [];
	out.push(`Watchdog: ${onOff(resolved)}`);
	out.push(`Reviewer model: ${describeChoice(input.reviewer)}  [main.model from ${resolved.sources["main.model"]}, main.thinking from ${resolved.sources["main.thinking"]}]`);
	out.push(`Settings: user ${input.files.user}; project ${input.files.project}${input.files.projectTrusted ? "" : " (project not trusted: not read)"}`);
	pushProblems(out, "Config errors", resolved.errors);
	pushProblems(out, "Warnings", resolved.warnings);
	pushProblems(out, "Ignored", resolved.ignored);

	out.push("", "Effective settings (value, source):");
	const rows: Array<[string, string, string]> = [];
	forEachLeaf(s, "", (path, value) => rows.push([path, JSON.stringify(value), resolved.sources[path] ?? "default"]));
	for (const empty of emptyMaps(s)) rows.push([empty, "{}", resolved.sources[empty] ?? "default"]);
	rows.sort((a, b) => a[0].localeCompare(b[0]));
	const w0 = Math.max(...rows.map((r) => r[0].length));
	const w1 = Math.min(40, Math.max(...rows.map((r) => r[1].length)));
	for (const [k, v, src] of rows) out.push(`  ${k.padEnd(w0)}  ${v.padEnd(w1)}  ${src}`);

	for (const section of input.sections) {
		out.push("", `${section.title}:`);
		for (const line of section.lines) out.push(`  ${line}`);
	}
	return out.join("\n");
}

function onOff(resolved: ResolvedSettings): string {
	if (resolved.errors.length > 0) return `off for this session: the settings have ${resolved.errors.length} error${resolved.errors.length > 1 ? "s" : ""} (listed below)`;
	return resolved.settings.enabled ? `on (enabled from ${resolved.sources.enabled})` : `off (enabled = false from ${resolved.sources.enabled}; turn it on with /subagents-watchdog on)`;
}

function pushProblems(out: string[], title: string, problems: SettingsProblem[]): void {
	if (problems.length === 0) return;
	out.push(`${title}:`);
	for (const p of problems) out.push(`  - ${p.source} (${p.origin}): ${p.message}`);
}

function emptyMaps(s: WatchdogSettings): string[] {
	const out: string[] = [];
	if (Object.keys(s.children.overrides).length === 0) out.push("children.overrides");
	if (Object.keys(s.rules.roleModels).length === 0) out.push("rules.roleModels");
	return out;
}

/** What each capability reports until it has run; capabilities replace their own section. */
export function baselineSections(s: WatchdogSettings): StatusSection[] {
	const every = (n: number | false) => (n ? `every ${n} tool results` : "off");
	const roles = Object.keys(s.rules.roleModels);
	const overrides = Object.entries(s.children.overrides);
	return [
		{ title: "Review", lines: ["Trigger: at the end of each run that changed the repository", "Last review: none this session", "Last warning: none", "Changed paths: none seen", "Stalemate count: 0", "Review cost this session: $0"] },
		{ title: "Findings", lines: ["none this session"] },
		{ title: "LSP", lines: [s.lsp.enabled ? `enabled (timeout ${s.lsp.timeoutMs} ms, at most ${s.lsp.maxFiles} files); not started this session` : "disabled"] },
		{ title: "Cadence", lines: [`main: ${every(s.cadence.everyNTools)}`] },
		{
			title: "Children",
			lines: [
				s.children.enabled ? `child watchdogs on (model ${s.children.model}, thinking ${s.children.thinking}, cadence ${every(s.children.cadence.everyNTools)})` : "child watchdogs off",
				...overrides.map(([role, o]) => `${role}: ${JSON.stringify(o)}`),
				"no children this session",
			],
		},
		{ title: "Launch rules", lines: [`${roles.length} role${roles.length === 1 ? "" : "s"} with rules (action ${s.rules.action})${roles.length ? `: ${roles.join(", ")}` : ""}`] },
	];
}
