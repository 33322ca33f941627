// The activity tail (clarification on, main session only): what the session's own turns did
// with child agents, as the reviewer should see it when a run orchestrated children without
// changing anything locally. Each entry is one `subagent` call paired with its result (same
// tool name, exact tool-call id); a launch or a run action counts, the watchdog's own
// management actions do not. Entries are bounded, and only the recent tail is kept. Pure:
// built from the turns Pi reports; the session decides when to add, clear and review.
import { clip, contentText, oneLine } from "../util/index.ts";

export const ACTIVITY_TOOL = "subagent";
/** The `subagent` run actions that are orchestration (the same list as children/tool-params.ts RUN_ACTIONS). */
export const ORCHESTRATION_ACTIONS: readonly string[] = ["status", "steer", "interrupt", "stop", "wait"];
export const ACTIVITY_ENTRY_CHARS = 3000;
export const ACTIVITY_TAIL_CHARS = 6000;
const CALL_CHARS = 1000;

/** The parts of a turn the tail reads: the assistant message's tool calls and the results. */
export interface TurnLike {
	message?: { role?: string; content?: unknown };
	toolResults?: ReadonlyArray<{ toolCallId?: string; toolName?: string; content?: unknown; isError?: boolean }>;
}

export interface ActivityEntry {
	/** The tool-call id it pairs on. */
	id: string;
	text: string;
	/** Recorded in a run the user (not a watchdog continuation) started: it may trigger a review. */
	fresh: boolean;
	/** A completed review already saw it. */
	reviewed: boolean;
}

/** Whether a `subagent` call's arguments are orchestration: a launch (no action) or a run action. */
export function isOrchestration(args: unknown): boolean {
	if (typeof args !== "object" || args === null || Array.isArray(args)) return false;
	const action = (args as { action?: unknown }).action;
	return action === undefined || (typeof action === "string" && ORCHESTRATION_ACTIONS.includes(action));
}

/** One turn's orchestration: each qualifying call with the result of the same name and id, as text. */
export function activityOfTurn(turn: TurnLike): Array<{ id: string; text: string }> {
	const content =
		turn.message?.role === "assistant" && Array.isArray(turn.message.content)
			? (turn.message.content as Array<Record<string, unknown>>)
			: [];
	const out: Array<{ id: string; text: string }> = [];
	for (const block of content) {
		if (
			block.type !== "toolCall" ||
			block.name !== ACTIVITY_TOOL ||
			typeof block.id !== "string" ||
			!isOrchestration(block.arguments)
		)
			continue;
		const result = turn.toolResults?.find((r) => r.toolCallId === block.id && r.toolName === ACTIVITY_TOOL);
		if (!result) continue; // a call without its result is not activity that happened
		const action = (block.arguments as { action?: string }).action ?? "launch";
		const call = `[subagent ${action}] ${clip(oneLine(JSON.stringify(block.arguments)), CALL_CHARS)}`;
		const head = `${call}\n[result${result.isError ? ", error" : ""}]\n`;
		out.push({ id: block.id, text: clip(`${head}${contentText(result.content)}`, ACTIVITY_ENTRY_CHARS) });
	}
	return out;
}

/** The tail after `added`: newest last, the oldest dropped until the total fits `ACTIVITY_TAIL_CHARS`. */
export function keepTail(entries: readonly ActivityEntry[], added: readonly ActivityEntry[]): ActivityEntry[] {
	const all = [...entries.filter((e) => !added.some((a) => a.id === e.id)), ...added];
	let total = all.reduce((n, e) => n + e.text.length, 0);
	let first = 0;
	while (total > ACTIVITY_TAIL_CHARS && first < all.length - 1) total -= all[first++].text.length;
	return all.slice(first);
}

/**
 * The session's tail and the per-prompt limits of clarification: one activity review and one
 * question per real user prompt. Small state over the pure functions above.
 */
export class ActivityTail {
	private entries: ActivityEntry[] = [];
	/** Fresh activity recorded since the last settle. */
	private freshInRun = false;
	private activityReviewed = false;
	private askedThisPrompt = false;
	/** The current run was started by the watchdog (a finding's or a question's continuation, a nudge). */
	private watchdogRun = false;

	/** A real user prompt: new limits, and the next run is the user's. */
	userPrompt(): void {
		this.activityReviewed = false;
		this.askedThisPrompt = false;
		this.watchdogRun = false;
	}

	/** Any input (another extension's too): the run it starts is not the watchdog's. */
	input(): void {
		this.watchdogRun = false;
	}

	/** The watchdog started the next run: what it does cannot trigger an activity review. */
	continuedByWatchdog(): void {
		this.watchdogRun = true;
	}

	/** The settle ended without the watchdog continuing. */
	settledAlone(): void {
		this.watchdogRun = false;
	}

	turnEnd(turn: TurnLike): void {
		const found = activityOfTurn(turn);
		if (!found.length) return;
		const fresh = !this.watchdogRun;
		if (fresh) this.freshInRun = true;
		this.entries = keepTail(
			this.entries,
			found.map((f) => ({ ...f, fresh, reviewed: false })),
		);
	}

	/** Session replacement, compaction, shutdown, clarification or the watchdog turned off. */
	clear(): void {
		this.entries = [];
		this.freshInRun = false;
	}

	/**
	 * At the settle boundary: whether this run's own fresh activity calls for the prompt's one activity review.
	 * Resets the run's mark.
	 */
	takeActivityDue(): boolean {
		const due = this.freshInRun && !this.activityReviewed && this.entries.some((e) => e.fresh && !e.reviewed);
		this.freshInRun = false;
		return due;
	}

	activityReviewStarted(): void {
		this.activityReviewed = true;
	}

	/** A completed review saw the whole tail. */
	reviewed(): void {
		this.entries = this.entries.map((e) => (e.reviewed ? e : { ...e, reviewed: true }));
	}

	/** Whether the reviewer may still ask this prompt. */
	mayAsk(): boolean {
		return !this.askedThisPrompt;
	}

	asked(): void {
		this.askedThisPrompt = true;
	}

	/** The entries for the reviewer, oldest first, unreviewed ones marked. */
	texts(): string[] {
		return this.entries.map((e) => (e.reviewed ? e.text : `(new) ${e.text}`));
	}

	/** The Clarification part of status. */
	section(on: boolean): { title: string; lines: string[] } {
		if (!on) return { title: "Clarification", lines: ["off"] };
		const { entries, chars } = this.size();
		return {
			title: "Clarification",
			lines: [
				"on (main session): activity reviews and one watchdog_ask question per prompt",
				`this prompt: question ${this.askedThisPrompt ? "asked" : "not asked"}, activity ` +
					`review ${this.activityReviewed ? "done" : "not done"}`,
				`activity tail: ${entries} entr${entries === 1 ? "y" : "ies"}, ${chars} of ${ACTIVITY_TAIL_CHARS} characters`,
			],
		};
	}

	size(): { entries: number; chars: number } {
		return { entries: this.entries.length, chars: this.entries.reduce((n, e) => n + e.text.length, 0) };
	}
}
