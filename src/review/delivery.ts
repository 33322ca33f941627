// Routing a review's findings: high importance reaches the model and continues the run
// (Pi's own continuation from `agent_before_settle`); low and medium are session entries
// for the user only, which never enter model context. Pure: it returns the entries.
import type { SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { agentMessage, type Finding, findingText, sameFinding, type Severity } from "./finding.ts";

export const FINDING_MESSAGE = "watchdog-finding";
export const NOTE_ENTRY = "watchdog-note";

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
	/** Why no continuation may start (cap reached), if so. */
	continuationBlocked?: string;
	/** Low and medium findings already shown to the user recently. */
	recentlyShown: Finding[];
}

export interface DeliveryPlan {
	entries: SessionBoundaryDraft[];
	continueRun: boolean;
	toModel: Finding[];
	toUser: Finding[];
	/** Below the severity threshold: recorded, not shown. */
	hidden: Finding[];
}

export function planDelivery(input: DeliveryInput): DeliveryPlan {
	const hidden = input.findings.filter((f) => input.threshold === "blocker" && f.severity !== "blocker");
	const shown = input.findings.filter((f) => !hidden.includes(f));
	const isStalemated = (f: Finding) => input.stalemated.includes(f);
	const toModel = shown.filter((f) => f.importance === "high" && !isStalemated(f) && !input.continuationBlocked);
	const toUser = shown.filter((f) => !toModel.includes(f) && !(f.importance !== "high" && input.recentlyShown.some((r) => sameFinding(r, f))));
	const entries: SessionBoundaryDraft[] = [];
	if (toModel.length) {
		entries.push({ type: "custom_message", customType: FINDING_MESSAGE, content: modelMessage(toModel), display: true, details: { findings: toModel } });
	}
	for (const finding of toUser) {
		const stalemate = isStalemated(finding);
		const heldBack = finding.importance === "high" ? (stalemate ? "stalemate" : input.continuationBlocked) : undefined;
		const data: NoteData = { finding, text: noteText(finding, stalemate, heldBack), ...(stalemate ? { stalemate } : {}), ...(heldBack ? { heldBack } : {}) };
		entries.push({ type: "custom", customType: NOTE_ENTRY, data });
	}
	return { entries, continueRun: toModel.length > 0, toModel, toUser, hidden };
}

function modelMessage(findings: Finding[]): string {
	const lead = findings.length === 1 ? "The watchdog reviewed this run and reports a problem to address before the work can be relied on." : `The watchdog reviewed this run and reports ${findings.length} problems to address before the work can be relied on.`;
	return agentMessage(lead, findings);
}

export function noteText(f: Finding, stalemate: boolean, heldBack?: string): string {
	const prefix = stalemate ? "Watchdog stalemate (raised again with no progress; not sent to the agent)" : heldBack ? `Watchdog (not sent to the agent: ${heldBack})` : "Watchdog note (for you only)";
	return `${prefix}\n${findingText(f)}`;
}
