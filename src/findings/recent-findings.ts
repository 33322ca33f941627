// What the sink remembers of the findings it handled: the recent ones with their fate (status,
// `dismiss N`), the ones dismissed by the user (never raised again), and which user prompt each
// belongs to. Rebuilt from the session's entries after /reload, resume or a restart.
import { type DeliveryPlan, type Fate, FINDING_MESSAGE, NOTE_ENTRY, type NoteData } from "./delivery.ts";
import { type Finding, firstLine, sameFinding, sourceLabel } from "./finding.ts";

const RECENT = 20;
/** Findings the user marked as seen (`/subagents-watchdog dismiss`), kept in the session. */
export const DISMISS_ENTRY = "watchdog-dismissed";

type SessionEntry = { type: string; customType?: string; data?: unknown; details?: unknown };
export type RecentFinding = { finding: Finding; fate: Fate; prompt: number };

export class RecentFindings {
	/** Shown or sent lately (the dedupe window of the delivery plan). */
	shown: Finding[] = [];
	/** Dismissed by the user: never raised again, no longer part of a stalemate. */
	dismissed: Finding[] = [];
	/** Newest last, with what became of each. */
	private recent: RecentFinding[] = [];
	/** Counts real user prompts, so status can show this prompt's findings. */
	private prompt = 0;

	restore(entries: ReadonlyArray<SessionEntry>): void {
		const recent: RecentFinding[] = [];
		this.dismissed = [];
		for (const e of entries) {
			const note = e.data as NoteData | undefined;
			if (e.type === "custom" && e.customType === NOTE_ENTRY && isFinding(note?.finding)) {
				const fate = note.stalemate ? "stalemate" : note.heldBack ? "held back" : "shown to you";
				recent.push({ finding: note.finding, fate, prompt: -1 });
			}
			if (e.type === "custom_message" && e.customType === FINDING_MESSAGE) {
				const found = (e.details as { findings?: unknown[] } | undefined)?.findings;
				if (Array.isArray(found))
					for (const finding of found.filter(isFinding))
						recent.push({ finding, fate: "sent to the agent", prompt: -1 });
			}
			if (e.type === "custom" && e.customType === DISMISS_ENTRY) {
				const found = (e.data as { findings?: unknown[] } | undefined)?.findings;
				if (Array.isArray(found)) this.dismissed.push(...found.filter(isFinding));
			}
		}
		this.shown = recent.map((r) => r.finding).slice(-RECENT);
		this.recent = recent.slice(-RECENT);
		for (const r of this.recent) if (this.isDismissed(r.finding)) r.fate = "dismissed";
	}

	userPrompt(): void {
		this.prompt++;
	}

	/** What a delivery plan showed or sent joins the memory. */
	remember(plan: DeliveryPlan): void {
		const shown = [...plan.toModel, ...plan.toUser];
		this.shown = [...this.shown, ...shown].slice(-RECENT);
		for (const d of plan.decisions)
			if (shown.includes(d.finding)) this.recent.push({ finding: d.finding, fate: d.fate, prompt: this.prompt });
		this.recent = this.recent.slice(-RECENT);
	}

	isDismissed(f: Finding): boolean {
		return this.dismissed.some((d) => sameFinding(d, f));
	}

	/** Recent findings, newest first, numbered from 1 as `dismiss N` takes them. */
	list(): Array<{ n: number } & RecentFinding> {
		return [...this.recent].reverse().map((r, i) => ({ n: i + 1, ...r }));
	}

	/** This prompt's findings, newest first, repeats folded into one with a count; and how many came before. */
	promptFindings(): { findings: Array<{ n: number; finding: Finding; fate: Fate; times: number }>; earlier: number } {
		const all = this.list();
		const mine = all.filter((r) => r.prompt === this.prompt);
		const folded: Array<{ n: number; finding: Finding; fate: Fate; times: number }> = [];
		for (const r of mine) {
			const same = folded.find((f) => sameFinding(f.finding, r.finding));
			if (same) same.times++;
			else folded.push({ n: r.n, finding: r.finding, fate: r.fate, times: 1 });
		}
		return { findings: folded, earlier: all.length - mine.length };
	}

	/** Marks number N of list() (or all not yet dismissed) as dismissed; returns those findings. */
	dismiss(which: number | "all"): Finding[] {
		const list = this.list().filter((r) => r.fate !== "dismissed");
		const findings = (which === "all" ? list : list.filter((r) => r.n === which)).map((r) => r.finding);
		this.dismissed.push(...findings);
		for (const r of this.recent) if (findings.includes(r.finding)) r.fate = "dismissed";
		return findings;
	}

	/** The Findings part of status: the recent ones, numbered for `dismiss`, with what became of each. */
	section(): { title: string; lines: string[] } {
		const list = this.list();
		if (!list.length) return { title: "Findings", lines: ["none this session"] };
		const lines = list
			.slice(0, 8)
			.map(
				(r) =>
					`${r.n}. ${r.finding.severity} (${r.fate}) [${sourceLabel(r.finding)}] ${firstLine(r.finding.summary, 100)}`,
			);
		if (list.length > 8) lines.push(`… ${list.length - 8} older`);
		return { title: "Findings", lines: [...lines, "dismiss one with /subagents-watchdog dismiss N, or all of them"] };
	}
}

function isFinding(value: unknown): value is Finding {
	return (
		typeof value === "object" &&
		value !== null &&
		typeof (value as Finding).summary === "string" &&
		typeof (value as Finding).evidence === "string"
	);
}
