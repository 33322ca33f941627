// Does a settings change lower the watchdog's oversight? Pure: it compares the settings before
// with the same settings after the change and names, in plain words, everything that would
// watch less closely. An agent may make such a change only with the user's consent.
import { THINKING_LEVELS, type Thinking } from "../models/index.ts";
import { modelFamily } from "../models/index.ts";
import { chooseReviewer, type ReviewerChoice, type SessionModelInfo } from "../models/index.ts";
import { getPath, setPath } from "./resolve.ts";
import { type CadenceSetting, DEFAULT_SETTINGS, type ThinkingSetting, type WatchdogSettings } from "./defaults.ts";

/** Dotted key → new value; `undefined` removes the key, so the default applies again. */
export type SettingsChanges = Iterable<readonly [string, unknown]>;

/** The reasons `changes` lowers oversight compared with `before`; empty when it does not. */
export function loweredOversight(
	before: WatchdogSettings,
	changes: SettingsChanges,
	session: SessionModelInfo,
): string[] {
	const after = applyChanges(before, changes);
	return [
		...lostSwitches(before, after),
		...lostCadence(before, after),
		...weakerReviewers(before, after, session),
		...weakerArbiter(before, after),
	];
}

export function applyChanges(before: WatchdogSettings, changes: SettingsChanges): WatchdogSettings {
	const after = structuredClone(before);
	for (const [key, value] of changes) {
		setPath(
			after as unknown as Record<string, unknown>,
			key,
			value === undefined ? structuredClone(getPath(DEFAULT_SETTINGS, key)) : value,
		);
	}
	return after;
}

// Switches where `true` watches more closely; turning one from on to off lowers oversight.
const SWITCHES: Array<[key: string, what: string]> = [
	["enabled", "turns the main watchdog off"],
	["children.enabled", "turns the child watchdogs off"],
	["lsp.enabled", "turns the LSP pre-pass off"],
	["loops.enabled", "turns the loop detector off"],
	["loops.stopRun", "no longer stops a run that keeps looping"],
	["scope.enabled", "stops giving the reviewer the user's requests"],
	["guidance.watchdogMd", "stops reading WATCHDOG.md"],
	["clarification", "turns clarification off"],
	["idle.main", "turns unfinished-stop nudges off for the main session"],
	["idle.children", "turns unfinished-stop nudges off for child agents"],
	["headless.strict", "no longer fails a print or RPC run that ends with an open blocker"],
];

// Ordered from the least to the most oversight.
const ORDERED: Array<[key: string, order: readonly string[], what: (was: string, now: string) => string]> = [
	[
		"severityThreshold",
		["blocker", "concern"],
		(was, now) => `raises severityThreshold from ${was} to ${now}, which hides every concern`,
	],
	[
		"idle.policy",
		["off", "handsoff", "keep"],
		(was, now) => `weakens the unfinished-stop policy from ${was} to ${now}`,
	],
	[
		"rules.action",
		["warn", "block"],
		(was, now) => `launch rules would ${now} instead of ${was} when a child asks for a forbidden model`,
	],
];

function lostSwitches(before: WatchdogSettings, after: WatchdogSettings): string[] {
	const reasons: string[] = [];
	for (const [key, what] of SWITCHES)
		if (getPath(before, key) === true && getPath(after, key) === false) reasons.push(what);
	// `main.enabled` absent follows `enabled`: setting it false while the master switch is on stops the main review.
	if (before.enabled && before.main.enabled !== false && after.enabled && after.main.enabled === false) {
		reasons.push("stops reviewing the main session (main.enabled: false)");
	}
	for (const [key, order, what] of ORDERED) {
		const was = String(getPath(before, key));
		const now = String(getPath(after, key));
		if (order.indexOf(now) < order.indexOf(was)) reasons.push(what(was, now));
	}
	for (const role of roleNames(before, after)) {
		if (roleEnabled(before, role) && !roleEnabled(after, role))
			reasons.push(`turns the watchdog of the "${role}" role off`);
	}
	return reasons;
}

function lostCadence(before: WatchdogSettings, after: WatchdogSettings): string[] {
	const targets: Array<[where: string, every: (s: WatchdogSettings) => unknown]> = [
		["cadence.everyNTools", (s) => s.cadence.everyNTools],
		["children.cadence.everyNTools", (s) => s.children.cadence.everyNTools],
		// A role without a cadence of its own follows the children's.
		...roleNames(before, after).map((role): [string, (s: WatchdogSettings) => unknown] => [
			`children.overrides.${role}.cadence.everyNTools`,
			(s) => s.children.overrides[role]?.cadence?.everyNTools ?? s.children.cadence.everyNTools,
		]),
	];
	const reasons: string[] = [];
	for (const [where, every] of targets) {
		const was = cadenceEvery(every(before));
		const now = cadenceEvery(every(after));
		if (was === undefined || was === now) continue;
		if (now === undefined) reasons.push(`turns cadence reviews off (${where})`);
		else if (now > was)
			reasons.push(`makes cadence reviews rarer: every ${now} tool results instead of ${was} (${where})`);
	}
	return reasons;
}

/** The permission arbiter: another model (which may approve more), or a lower classifier threshold. */
function weakerArbiter(before: WatchdogSettings, after: WatchdogSettings): string[] {
	const reasons: string[] = [];
	const [was, now] = [before.permissions, after.permissions];
	if (was.model !== now.model) reasons.push(`changes the permission arbiter's model from ${was.model} to ${now.model}`);
	if (now.threshold < was.threshold)
		reasons.push(`lowers the classifier arbiter's threshold from ${was.threshold} to ${now.threshold}`);
	return reasons;
}

/** Every N tool results, or undefined when cadence reviews are off. */
function cadenceEvery(value: unknown): number | undefined {
	const n = value as CadenceSetting | undefined;
	return typeof n === "number" && n > 0 ? n : undefined;
}

interface Target {
	label: string;
	pair: (s: WatchdogSettings) => { model: string; thinking: ThinkingSetting };
}

function weakerReviewers(before: WatchdogSettings, after: WatchdogSettings, session: SessionModelInfo): string[] {
	const targets: Target[] = [
		{ label: "the main watchdog's", pair: (s) => s.main },
		{ label: "the child watchdogs'", pair: (s) => s.children },
		// A role without a model or thinking of its own follows the children's, judged above.
		...roleNames(before, after)
			.filter((role) => ownPair(before, role) || ownPair(after, role))
			.map((role): Target => ({ label: `the "${role}" role's`, pair: (s) => rolePair(s, role) })),
	];
	const reasons: string[] = [];
	for (const target of targets) {
		const pairBefore = target.pair(before);
		const pairAfter = target.pair(after);
		const was = chooseReviewer(pairBefore, session);
		const now = chooseReviewer(pairAfter, session);
		reasons.push(
			...reviewerReasons(
				target.label,
				was,
				now,
				pairAfter.thinking === "inherit" && pairBefore.thinking !== "inherit",
				session,
			),
		);
	}
	return reasons;
}

function reviewerReasons(
	label: string,
	was: ReviewerChoice,
	now: ReviewerChoice,
	thinkingNowInherited: boolean,
	session: SessionModelInfo,
): string[] {
	const reasons: string[] = [];
	const own = session.model;
	if (own && now.provider && now.id) {
		const ownRef = `${own.provider}/${own.id}`;
		const nowRef = `${now.provider}/${now.id}`;
		const family = modelFamily(own);
		const wasOwn = was.provider === own.provider && was.id === own.id;
		const wasFamily = was.provider && was.id ? modelFamily({ provider: was.provider, id: was.id }) === family : false;
		if (nowRef === ownRef && !wasOwn) {
			reasons.push(
				`${label} reviewer would be the session's own model (${ownRef})` +
					`${now.kind === "inherit" ? ', through "inherit"' : ""}: ` +
					`it would review its own work`,
			);
		} else if (nowRef !== ownRef && modelFamily({ provider: now.provider, id: now.id }) === family && !wasFamily) {
			reasons.push(
				`${label} reviewer ${nowRef} is of the same family (${family}) as the session's ` +
					`model ${ownRef}, so it is no independent view`,
			);
		}
	}
	if (thinkingNowInherited && now.thinking !== was.thinking) {
		reasons.push(
			`${label} reviewer thinking would follow the session's level (now ${now.thinking}) instead of ${was.thinking}`,
		);
	} else if (rank(now.thinking) < rank(was.thinking)) {
		reasons.push(`${label} reviewer thinking drops from ${was.thinking} to ${now.thinking}`);
	}
	return reasons;
}

function rank(level: Thinking): number {
	return THINKING_LEVELS.indexOf(level);
}

function roleNames(...settings: WatchdogSettings[]): string[] {
	return [...new Set(settings.flatMap((s) => Object.keys(s.children.overrides)))].sort();
}

function ownPair(s: WatchdogSettings, role: string): boolean {
	const o = s.children.overrides[role];
	return o?.model !== undefined || o?.thinking !== undefined;
}

function rolePair(s: WatchdogSettings, role: string): { model: string; thinking: ThinkingSetting } {
	const o = s.children.overrides[role];
	return { model: o?.model ?? s.children.model, thinking: o?.thinking ?? s.children.thinking };
}

function roleEnabled(s: WatchdogSettings, role: string): boolean {
	return s.children.overrides[role]?.enabled ?? s.children.enabled;
}
