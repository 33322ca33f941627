// What becomes of each finding, whatever its source: below the severity threshold it is only
// recorded; high importance reaches the model while the prompt's continuation budget lasts
// (and the finding is not stalemated); the rest is for the user, as session entries that never
// enter model context, unless the same low or medium finding was shown recently. Pure: it
// returns the decisions and the entries; the sink (sink.ts) carries them out.
import type { SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { agentMessage, type Finding, findingText, sameFinding, type Severity } from "./finding.ts";

export const FINDING_MESSAGE = "watchdog-finding";
export const NOTE_ENTRY = "watchdog-note";

export type Fate =
	| "sent to the agent"
	| "shown to you"
	| "below threshold"
	| "duplicate"
	| "stalemate"
	| "held back"
	| "dismissed";

export interface NoteData {
	finding: Finding;
	/** Plain text, for print and RPC mode. */
	text: string;
	stalemate?: boolean;
	/** Why a high finding was not sent to the model. */
	heldBack?: string;
}

export interface DeliveryInput {
	findings: Finding[];
	threshold: Severity;
	/** Findings that reached the stalemate count. */
	stalemated: Finding[];
	/** Why no continuation may start (the prompt's budget is spent), if so. */
	continuationBlocked?: string;
	/** Why a finding never reaches the model (policy handsoff), when it does not. */
	holdBack?: (f: Finding) => string | undefined;
	/** Findings already shown to the user recently. */
	recentlyShown: Finding[];
	/** Findings the user dismissed: seen, not to be raised again. */
	dismissed?: Finding[];
	/** `maxWarnings`: how many more findings may go to the agent this prompt, and why no more may. */
	sendCap?: { left: number; why: string };
}

export interface DeliveryPlan {
	entries: SessionBoundaryDraft[];
	/** Whether something goes to the model (it uses one continuation). */
	continueRun: boolean;
	toModel: Finding[];
	toUser: Finding[];
	decisions: Array<{ finding: Finding; fate: Fate }>;
}

export function planDelivery(input: DeliveryInput): DeliveryPlan {
	const decisions = input.findings.map((finding) => ({ finding, fate: fateOf(finding, input) }));
	// Past the cap a finding is held back: still shown to the user, never sent.
	let left = input.sendCap?.left ?? Infinity;
	const capped = new Set<Finding>();
	for (const d of decisions) {
		// A launch-rule warning answers a rule the user set to be warned about: no cap hides it.
		if (d.fate !== "sent to the agent" || d.finding.source === "rules") continue;
		if (left-- > 0) continue;
		d.fate = "held back";
		capped.add(d.finding);
	}
	const toModel = decisions.filter((d) => d.fate === "sent to the agent").map((d) => d.finding);
	const toUser = decisions
		.filter((d) => d.fate === "shown to you" || d.fate === "stalemate" || d.fate === "held back")
		.map((d) => d.finding);
	const entries: SessionBoundaryDraft[] = [];
	if (toModel.length) {
		entries.push({
			type: "custom_message",
			customType: FINDING_MESSAGE,
			content: modelMessage(toModel),
			display: true,
			details: { findings: toModel },
		});
	}
	for (const { finding, fate } of decisions) {
		if (!toUser.includes(finding)) continue;
		const stalemate = fate === "stalemate";
		const heldBack =
			fate === "stalemate" ? "stalemate" : fate === "held back" ? heldBackWhy(finding, input, capped) : undefined;
		const data: NoteData = {
			finding,
			text: noteText(finding, stalemate, heldBack),
			...(stalemate ? { stalemate } : {}),
			...(heldBack ? { heldBack } : {}),
		};
		entries.push({ type: "custom", customType: NOTE_ENTRY, data });
	}
	return { entries, continueRun: toModel.length > 0, toModel, toUser, decisions };
}

function heldBackWhy(f: Finding, input: DeliveryInput, capped: Set<Finding>): string | undefined {
	if (capped.has(f)) return input.sendCap?.why;
	return input.holdBack?.(f) ?? input.continuationBlocked;
}

function fateOf(f: Finding, input: DeliveryInput): Fate {
	// A launch-rule warning answers a rule the user set to be warned about: no threshold hides it.
	if (input.threshold === "blocker" && f.severity !== "blocker" && f.source !== "rules") return "below threshold";
	if (input.dismissed?.some((d) => sameFinding(d, f))) return "dismissed";
	if (f.importance === "high") {
		if (input.stalemated.includes(f)) return "stalemate";
		return input.continuationBlocked || input.holdBack?.(f) ? "held back" : "sent to the agent";
	}
	return input.recentlyShown.some((r) => sameFinding(r, f)) ? "duplicate" : "shown to you";
}

/** The agent's message: its lead says where the findings come from. */
function modelMessage(findings: Finding[]): string {
	if (findings.every((f) => f.child)) {
		const one = findings.length === 1;
		const children = [...new Set(findings.map((f) => f.child))].join(", ");
		const lead = `The watchdog of a child agent you launched (${children}) raised ${one ? "this" : "these"}`;
		const told = `the child was told first, and its result may already answer ${one ? "it" : "them"}`;
		return agentMessage(`${lead} while the child worked; ${told}.`, findings);
	}
	if (findings.every((f) => f.source === "loops"))
		return agentMessage("The watchdog noticed the run going in circles.", findings);
	if (findings.every((f) => f.source === "rules"))
		return agentMessage(
			"A launch rule set by the user does not allow the model a child you launched runs on; the launch went on.",
			findings,
		);
	if (findings.every((f) => f.source === "idle"))
		return agentMessage(
			"The watchdog noticed that this run stopped before the work was finished, and nudges it on.",
			findings,
		);
	if (findings.every((f) => f.source === "verify"))
		return agentMessage(
			`The watchdog verified the child agents of this orchestration once ` +
				`they had all stopped, each against its own session log, and ` +
				`${findings.length === 1 ? "one child's stop does" : `${findings.length} children's stops do`}` +
				` not hold.`,
			findings,
		);
	if (findings.every((f) => f.source === "claims" || f.source === "idle"))
		return agentMessage(
			"The watchdog checked the closing report against this session's own tool log, and the log does not bear it out.",
			findings,
		);
	const lead =
		findings.length === 1
			? "The watchdog reviewed this run and reports a problem to address before the work can be relied on."
			: `The watchdog reviewed this run and reports ${findings.length} problems to address ` +
				`before the work can be relied on.`;
	return agentMessage(lead, findings);
}

export function noteText(f: Finding, stalemate: boolean, heldBack?: string): string {
	const prefix = stalemate
		? "Watchdog stalemate (raised again with no progress; not sent to the agent)"
		: heldBack
			? `Watchdog (not sent to the agent: ${heldBack})`
			: "Watchdog note (for you only)";
	return `${prefix}\n${findingText(f)}`;
}
