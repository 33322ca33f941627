// The session as the evidence checks read it: the facts of every tool call so far, and the
// current stretch since the last real user prompt (a segment) with how it stopped: the visible
// text after its last tool call, whether that text was empty, whether there was hidden
// reasoning, whether it ended on an error. Fed SessionEvents in order, whatever recorded them
// (a live Pi session's branch, a session file); memory grows with the calls only (one small
// fact each; a log that defers its facts keeps each call's record, its result cut, until they
// are read) and the stop's text is bounded.
import type { SessionEvent, ToolCallRecord } from "../transcript/index.ts";
import { type CallFact, factOf, wroteFile } from "./facts.ts";

/** The text kept of a stop: its head and its tail (a closing report is at the end). */
const STOP_HEAD = 12_000;
const STOP_TAIL = 12_000;
/** The prompt kept per segment (the goal a nudge restates). */
const PROMPT_CHARS = 4_000;
/** What is kept of the agent's words since the last edit (claims made between the last runs). */
const SINCE_EDIT_CHARS = 6_000;

export interface Stop {
	/** Visible text after the segment's last tool call (empty when there was none). */
	text: string;
	/** Whether any assistant message came after the last tool call. */
	spoke: boolean;
	/** Hidden reasoning in those messages. */
	thinking: boolean;
	/** The last of them ended on a provider or harness error. */
	error: boolean;
}

export interface Segment {
	/** 0-based number of the segment (segment 0 runs up to the first prompt's successor). */
	n: number;
	/** The real user prompt that opened it (empty when the session starts without one). */
	prompt: string;
	/** Index of its first tool call, and one past its last (no calls: first === end). */
	firstCall: number;
	endCall: number;
	stop: Stop;
	/** What the agent said since the segment's last edit, before the stop as well (its tail, bounded). */
	sinceEdit: string;
}

/** Facts as the detectors take them: built, or a log that builds them when first asked (deferFacts). */
export type FactSource = CallFact[] | Pick<EvidenceLog, "facts" | "calls">;

export class EvidenceLog {
	private readonly built: CallFact[] = [];
	/** Calls whose facts are not built yet (a deferring log's). */
	private deferred: ToolCallRecord[] = [];
	private readonly deferFacts: boolean;
	private n = 0;
	private prompt = "";
	private firstCall = 0;
	private head = "";
	private tail = "";
	private spoke = false;
	private thinking = false;
	private error = false;
	private sinceEdit = "";
	/** Whether anything happened since the segment opened (a prompt alone is not a segment yet). */
	private active = false;

	/**
	 * `deferFacts`: a call's facts are built when `facts` is first read, not as it is added (a
	 * reader that may decide without them, the fleet's classifier, then never builds them).
	 */
	constructor(options: { deferFacts?: boolean } = {}) {
		this.deferFacts = options.deferFacts === true;
	}

	/** The facts of every call so far. */
	get facts(): CallFact[] {
		if (this.deferred.length) {
			for (const call of this.deferred) this.built.push(factOf(call));
			this.deferred = [];
		}
		return this.built;
	}

	/** How many calls so far (their facts built or not). */
	get calls(): number {
		return this.built.length + this.deferred.length;
	}

	/** Feeds one event; returns the segment a new prompt closed, if it closed one. */
	add(event: SessionEvent): Segment | undefined {
		if (event.type === "call") {
			if (this.deferFacts) this.deferred.push(event.call);
			else this.built.push(factOf(event.call));
			if (wroteFile(event.call)) this.sinceEdit = "";
			this.head = "";
			this.tail = "";
			this.spoke = false;
			this.thinking = false;
			this.error = false;
			this.active = true;
			return undefined;
		}
		if (event.type === "assistant") {
			this.active = true;
			this.spoke = true;
			if (event.thinking) this.thinking = true;
			this.error = event.error === true;
			if (event.text) {
				this.append(event.text);
				const joined = this.sinceEdit ? `${this.sinceEdit}\n${event.text}` : event.text;
				this.sinceEdit = joined.length > SINCE_EDIT_CHARS ? joined.slice(-SINCE_EDIT_CHARS) : joined;
			}
			return undefined;
		}
		if (event.type === "compaction") return undefined;
		const closed = this.active ? this.current() : undefined;
		if (closed) this.n++;
		this.prompt = event.text.slice(0, PROMPT_CHARS);
		this.firstCall = this.calls;
		this.sinceEdit = "";
		this.head = "";
		this.tail = "";
		this.spoke = false;
		this.thinking = false;
		this.error = false;
		this.active = false;
		return closed;
	}

	/** The segment in progress (at the end of a session, or at a live settle). */
	current(): Segment {
		const text = this.tail ? `${this.head}\n[…]\n${this.tail}` : this.head;
		return {
			n: this.n,
			prompt: this.prompt,
			firstCall: this.firstCall,
			endCall: this.calls,
			stop: { text, spoke: this.spoke, thinking: this.thinking, error: this.error },
			sinceEdit: this.sinceEdit,
		};
	}

	/** Whether anything happened since the last prompt. */
	hasActivity(): boolean {
		return this.active;
	}

	private append(text: string): void {
		if (!this.tail && this.head.length + text.length + 1 <= STOP_HEAD) {
			this.head = this.head ? `${this.head}\n${text}` : text;
			return;
		}
		const joined = this.tail ? `${this.tail}\n${text}` : text;
		this.tail = joined.length > STOP_TAIL ? joined.slice(joined.length - STOP_TAIL) : joined;
	}
}
