// The text of `/subagents-watchdog status` (and the `watchdog.status` action): pure formatting
// of the resolved settings, the reviewer in effect, and the sections each capability reports.
import type { StatusSection } from "../util/index.ts";
import { describeChoice, type ReviewerChoice } from "../models/index.ts";
import { forEachLeaf, howToTurnOn, type ResolvedSettings, type SettingsProblem } from "../settings/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";

export type { StatusSection };

export interface StatusInput {
	resolved: ResolvedSettings;
	reviewer: ReviewerChoice;
	/** The settings files; `…Exists` false says the file is not there (never looked at when untrusted). */
	files: { user: string; project: string; projectTrusted: boolean; userExists?: boolean; projectExists?: boolean };
	/** Trust in the project's own files: the decision, and what was held back since (see src/host/trust.ts). */
	trust?: { why: string; held: Array<{ path: string; why: string }>; command: string };
	sections: StatusSection[];
	/** Also list every setting left at its default (`status --settings`). */
	defaults?: boolean;
}

export function formatStatus(input: StatusInput): string {
	const { resolved } = input;
	const s = resolved.settings;
	const out: string[] = [];
	out.push(`Watchdog: ${onOff(resolved)}`);
	out.push(
		`Reviewer model: ${describeChoice(input.reviewer)}  [main.model from ${resolved.sources["main.model"]}, ` +
			`main.thinking from ${resolved.sources["main.thinking"]}]`,
	);
	const exists = (present: boolean | undefined) => (present === false ? " (no such file)" : "");
	// An untrusted project's file is never looked at, not even to say whether it exists.
	out.push(
		`Settings: user ${input.files.user}${exists(input.files.userExists)}; project ` +
			`${input.files.project}` +
			`${input.files.projectTrusted ? exists(input.files.projectExists) : " (project not trusted: not read)"}`,
	);
	pushProblems(out, "Config errors", resolved.errors);
	if (resolved.errors.length) out.push("  (a source with errors contributes no values until it is fixed)");
	pushProblems(out, "Warnings", resolved.warnings);
	pushProblems(out, "Ignored", resolved.ignored);
	pushProblems(
		out,
		"Project values refused (a project may tighten your settings, never loosen them)",
		resolved.refused ?? [],
	);
	pushProblems(out, "Found", resolved.notes ?? []);
	if (input.trust) {
		out.push(`Project trust: ${input.trust.why}`);
		if (input.trust.held.length) {
			out.push(`Held back (not run, read or applied; ${input.trust.command} allows them as they are now):`);
			for (const h of input.trust.held) out.push(`  - ${h.path}: ${h.why}`);
		}
	}

	// What the user set comes first, aligned; the defaults follow compactly so the whole status
	// fits a screen.
	const set: Array<[string, string, string]> = [];
	const defaults: string[] = [];
	const visit = (path: string, value: unknown) => {
		const source = resolved.sources[path] ?? "default";
		if (source === "default") defaults.push(`${path}=${JSON.stringify(value)}`);
		else set.push([path, JSON.stringify(value), source]);
	};
	forEachLeaf(s, "", visit);
	for (const empty of emptyMaps(s)) visit(empty, {});
	set.sort((a, b) => a[0].localeCompare(b[0]));
	defaults.sort();
	if (set.length) {
		out.push("Set by you (value, source):");
		const w0 = Math.max(...set.map((r) => r[0].length));
		const w1 = Math.min(40, Math.max(...set.map((r) => r[1].length)));
		for (const [k, v, src] of set) out.push(`  ${k.padEnd(w0)}  ${v.padEnd(w1)}  ${src}`);
	} else {
		out.push("Set by you: nothing; every value is a default.");
	}
	if (input.defaults !== false) out.push(...wrap(`Defaults: ${defaults.join(", ")}`, 110, "  "));
	else out.push("Every other setting has its default (status --settings lists them).");

	for (const section of input.sections) {
		const oneLine = `${section.title}: ${section.lines.join("; ")}`;
		if (oneLine.length <= 110) out.push(oneLine);
		else out.push(`${section.title}:`, ...section.lines.map((l) => `  ${l}`));
	}
	return out.join("\n");
}

function wrap(text: string, width: number, indent: string): string[] {
	const lines: string[] = [];
	let line = "";
	for (const word of text.split(" ")) {
		if (line && line.length + 1 + word.length > width) {
			lines.push(line);
			line = indent + word;
		} else line = line ? `${line} ${word}` : word;
	}
	if (line) lines.push(line);
	return lines;
}

export function onOff(resolved: ResolvedSettings): string {
	if (resolved.errors.length > 0)
		return (
			`off for this session: the settings have ${resolved.errors.length} ` +
			`error${resolved.errors.length > 1 ? "s" : ""} ` +
			`(listed below)`
		);
	if (resolved.settings.enabled && resolved.settings.main.enabled === false)
		return (
			`on for child agents only (main.enabled = false from ${resolved.sources["main.enabled"]}: ` +
			`this session's own work is not reviewed)`
		);
	return resolved.settings.enabled
		? `on (enabled from ${resolved.sources.enabled})`
		: `off (enabled = false from ${resolved.sources.enabled}; ${howToTurnOn(resolved)})`;
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
		{
			title: "Review",
			lines: [
				"last review: none this session",
				"last warning: none",
				"changed paths: none seen",
				"stalemate count: 0",
				"review cost this session: $0",
			],
		},
		{ title: "Pending", lines: ["nothing: every change so far was reviewed"] },
		{ title: "Findings", lines: ["none this session"] },
		{
			title: "LSP",
			lines: [
				s.lsp.enabled
					? `enabled (timeout ${s.lsp.timeoutMs} ms, at most ${s.lsp.maxFiles} files), not started this session`
					: "disabled",
			],
		},
		{ title: "Loops", lines: [s.loops.enabled ? "no tool calls seen yet" : "off"] },
		{
			title: "Evidence",
			lines: [
				`policy: ${s.idle.policy}; nudges: main ${s.idle.main ? "on" : "off"}, children ` +
					`${s.idle.children ? "on" : "off"}; no settle checked yet`,
			],
		},
		{ title: "Cadence", lines: [`main: ${every(s.cadence.everyNTools)}`] },
		{
			title: "Clarification",
			lines: [s.clarification ? "on (main session): activity reviews and one watchdog_ask question per prompt" : "off"],
		},
		{
			title: "Rotation",
			lines: [
				s.rotate.enabled
					? `on: ${s.rotate.models.join(" → ") || "no models (rotate.models is empty)"}`
					: "off (rotate.enabled: false)",
				"no rotation this session",
			],
		},
		{
			title: "Children",
			lines: [
				s.children.enabled
					? `child watchdogs on (model ${s.children.model}, thinking ${s.children.thinking}, ` +
						`cadence ${every(s.children.cadence.everyNTools)})`
					: "child watchdogs off",
				...overrides.map(([role, o]) => `${role}: ${JSON.stringify(o)}`),
				"no child findings this session",
			],
		},
		{
			title: "Launch rules",
			lines: [
				`${roles.length} role${roles.length === 1 ? "" : "s"} with rules ` +
					`(action ${s.rules.action})` +
					`${roles.length ? `: ${roles.join(", ")}` : ""}`,
			],
		},
	];
}
