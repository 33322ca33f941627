// Which model a rotation may switch to, and what the user and the agent are told. Pure: the
// registry checks (does a model resolve, has it credentials) are made by the caller, in the
// order `candidates` gives.
import { clip, oneLine, quoteLines } from "../util/index.ts";
import { parseModelRef, type Thinking } from "../models/index.ts";

export interface RotateSettings {
	enabled: boolean;
	models: string[];
	cooldownMs: number;
}

/** What a rotation remembers: when it last switched, and when each model last hit a limit. */
export interface RotationMemory {
	lastRotationAt?: number;
	/** "provider/id" → when it last ended a run on a limit. */
	limitedAt: Record<string, number>;
	/** When the current user prompt came (a model limited since then is out for this run). */
	runStartedAt: number;
}

export interface Candidate {
	/** As configured, e.g. "anthropic/claude-sonnet-4-5:high". */
	entry: string;
	/** "provider/id". */
	ref: string;
	provider: string;
	id: string;
	thinking?: Thinking;
}

/** A configured model passed over, and why. */
export interface Skip {
	ref: string;
	reason: string;
}

/**
 * The configured models in the order a rotation tries them: the ones after the current model in
 * `rotate.models` first, then from the top, so repeated rotations walk the list. Models that
 * are out before any registry check (the current one, one that hit a limit this run or within
 * the cooldown, "inherit") come back as skips, in list order.
 */
export function candidates(
	models: readonly string[],
	current: string | undefined,
	memory: RotationMemory,
	now: number,
	cooldownMs: number,
): { tryInOrder: Candidate[]; skipped: Skip[] } {
	const parsed = models.map((entry) => ({ entry, parsed: parseModelRef(entry) }));
	const at = parsed.findIndex((p) => p.parsed.ok && `${p.parsed.ref.provider}/${p.parsed.ref.id}` === current);
	const order = at < 0 ? parsed : [...parsed.slice(at + 1), ...parsed.slice(0, at + 1)];
	const tryInOrder: Candidate[] = [];
	const skipped: Skip[] = [];
	const seen = new Set<string>();
	for (const { entry, parsed: p } of order) {
		if (!p.ok) {
			skipped.push({ ref: entry, reason: entry === "inherit" ? '"inherit" names no model' : "not a model reference" });
			continue;
		}
		const ref = `${p.ref.provider}/${p.ref.id}`;
		if (seen.has(ref)) continue;
		seen.add(ref);
		const limited = memory.limitedAt[ref];
		if (ref === current) skipped.push({ ref, reason: "same as current" });
		else if (limited !== undefined && limited >= memory.runStartedAt)
			skipped.push({ ref, reason: "hit a limit earlier in this run" });
		else if (limited !== undefined && now - limited < cooldownMs)
			skipped.push({
				ref,
				reason: `in cooldown: hit a limit ${ago(now - limited)} ago (rotate.cooldownMs ${cooldownMs})`,
			});
		else
			tryInOrder.push({
				entry,
				ref,
				provider: p.ref.provider,
				id: p.ref.id,
				...(p.ref.thinking ? { thinking: p.ref.thinking } : {}),
			});
	}
	return { tryInOrder, skipped };
}

/** Why no rotation may happen at all right now, before any model is looked at. */
export function rotationBlocked(
	settings: RotateSettings,
	policy: string,
	memory: RotationMemory,
	now: number,
	continuationBlocked?: string,
): string | undefined {
	if (policy === "handsoff") return "policy handsoff: the watchdog flags, and never rotates";
	if (policy === "off") return "policy off";
	if (memory.lastRotationAt !== undefined && now - memory.lastRotationAt < settings.cooldownMs) {
		return (
			`in cooldown: the last rotation was ${ago(now - memory.lastRotationAt)} ago (rotate.cooldownMs ` +
			`${settings.cooldownMs})`
		);
	}
	if (!settings.models.length) return "rotate.models is empty";
	if (continuationBlocked) return `the session could not continue: ${continuationBlocked}`;
	return undefined;
}

export function skipsText(skipped: readonly Skip[]): string {
	return skipped.map((s) => `${s.ref}: ${s.reason}`).join("; ");
}

const PROMPT_CHARS = 600;
const ERROR_CHARS = 300;

/** The message that continues the run on the new model: what it was doing, what changed, why. */
export function resumeNote(input: { from: string; to: string; why: string; error: string; prompt?: string }): string {
	const task = input.prompt?.trim()
		? [
				"What you were doing (the user's latest request in this session):",
				quoteLines(clip(input.prompt.trim(), PROMPT_CHARS)),
			]
		: ["The user's request is in the conversation above."];
	return [
		`The watchdog switched this session's model from ${input.from} to ${input.to}: ` +
			`the last request to ${input.from} failed on ${input.why}. The provider said:`,
		quoteLines(clip(oneLine(input.error), ERROR_CHARS)),
		...task,
		"The conversation and every tool result so far are intact. Carry on from where " +
			"the work stopped; do not start over or redo steps that already succeeded.",
	].join("\n");
}

/** The user's notice after a switch. */
export function rotatedNotice(from: string, to: string, why: string, error: string, skipped: readonly Skip[]): string {
	const passed = skipped.length ? ` Passed over: ${skipsText(skipped)}.` : "";
	return (
		`Watchdog: ${from} stopped on ${why} (${clip(oneLine(error), 160)}). Switched ` +
		`this session to ${to} and continued.${passed}`
	);
}

/** The user's notice when nothing switched. */
export function notRotatedNotice(
	from: string,
	why: string,
	error: string,
	reason: string,
	skipped: readonly Skip[],
): string {
	const tried = skipped.length ? ` Tried: ${skipsText(skipped)}.` : "";
	return `Watchdog: ${from} stopped on ${why} (${clip(oneLine(error), 160)}). Not rotating: ${reason}.${tried}`;
}

export function ago(ms: number): string {
	const s = Math.max(0, Math.round(ms / 1000));
	return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
