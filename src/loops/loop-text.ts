// What a loop signal says: a short headline (what happened, at most HEADLINE_MAX characters,
// the finding's summary) and the evidence (the detail: which calls, the normalised call,
// counts, thresholds, what landed). The two never repeat each other. Pure.
import { clip } from "../util/index.ts";

/** A finding's summary fits one short line. */
export const HEADLINE_MAX = 80;

/** Room for a name inside a headline: with the words around it and "Still looping: ", at most HEADLINE_MAX. */
const NAME_MAX = 30;

/** A path or target short enough for a headline; a path keeps its end, where the file name is. */
export function shortName(name: string, max = NAME_MAX): string {
	if (name.length <= max) return name;
	return name.includes("/") && !name.includes(" ") ? `…${name.slice(name.length - max + 1)}` : clip(name, max);
}

const times = (n: number) => (n === 1 ? "once" : `${n} times`);

function landing(lastLanded: number | undefined): string {
	return lastLanded === undefined ? "nothing has landed yet" : `last landing: call ${lastLanded}`;
}

export interface SignalText {
	headline: string;
	evidence: string;
}

export function repeatText(a: {
	tool: string;
	label: string;
	poll: boolean;
	count: number;
	first: number;
	to: number;
	window: number;
	threshold: number;
}): SignalText {
	if (a.poll)
		return {
			headline: `Same answer from ${shortName(a.tool, 24)} ${times(a.count)} in a row`,
			evidence:
				`Call: ${a.label}. Identical answers at calls ${a.first}–${a.to}, one after another ` +
				`(threshold: ${a.threshold} in a row).`,
		};
	return {
		headline: `Same ${shortName(a.tool, 24)} call repeated ${times(a.count)}`,
		evidence:
			`Call: ${a.label}. Identical result each time, calls ${a.first}–${a.to}, within ` +
			`the last ${a.window} calls (threshold: ${a.threshold}).`,
	};
}

export function rerunText(a: {
	label: string;
	count: number;
	first: number;
	to: number;
	lastLanded?: number;
	threshold: number;
}): SignalText {
	return {
		headline: `Check re-run ${times(a.count)} with nothing changed in between`,
		evidence:
			`Check: ${a.label}. Same result at each run, calls ${a.first}–${a.to}; no edit, ` +
			`write or file-changing command between them (${landing(a.lastLanded)}; threshold: ` +
			`${a.threshold} runs).`,
	};
}

export function targetText(a: {
	target: string;
	hits: number;
	first: number;
	to: number;
	window: number;
	threshold: number;
}): SignalText {
	return {
		headline: `${shortName(a.target)} called ${times(a.hits)}, nothing new`,
		evidence:
			`Target: ${a.target}. ${a.hits} calls to it within the last ${a.window} calls ` +
			`(calls ${a.first}–${a.to}) brought answers already seen (threshold: ${a.threshold}).`,
	};
}

export function staleText(a: {
	count: number;
	window: number;
	first: number;
	to: number;
	latest: string;
	threshold: number;
}): SignalText {
	return {
		headline: `${a.count} of the last ${a.window} calls brought nothing new`,
		evidence:
			`Calls ${a.first}–${a.to}: the same answers for the same files or commands as ` +
			`earlier (threshold: ${a.threshold}). Latest: ${a.latest}.`,
	};
}

export function dominantText(a: {
	tool: string;
	label: string;
	count: number;
	since: number;
	stale: number;
	first: number;
	to: number;
	lastLanded?: number;
	share: number;
}): SignalText {
	return {
		headline: `One ${shortName(a.tool, 24)} call makes up ${a.count} of ${a.since} calls`,
		evidence:
			`Call: ${a.label}. Calls ${a.first}–${a.to}, ${a.stale} of them with an answer ` +
			`already seen; ${landing(a.lastLanded)} (threshold: ${Math.round(a.share * 100)}% ` +
			`of the calls since).`,
	};
}

export function rereadText(a: {
	path: string;
	total: number;
	unique: number;
	first: number;
	to: number;
	factor: number;
}): SignalText {
	const over = Math.floor(a.total / a.unique);
	return {
		headline: `${shortName(a.path)} read ${times(over)} without a change`,
		evidence:
			`${a.total} lines read for ${a.unique} distinct lines (${(a.total / a.unique).toFixed(1)}×), ` +
			`calls ${a.first}–${a.to}, nothing landed in between (threshold: ${a.factor}×).`,
	};
}

export function cycleText(a: { labels: string[]; rounds: number; first: number; to: number }): SignalText {
	return {
		headline: `Cycle of ${a.labels.length} calls gone round ${times(a.rounds)}`,
		evidence: `Calls ${a.first}–${a.to}: ${a.labels.join(" → ")}, each round with the same results.`,
	};
}

export function restatingText(a: {
	text: string;
	count: number;
	from: number;
	to: number;
	threshold: number;
}): SignalText {
	return {
		headline: `Same sentence said in ${a.count} turns, nothing new between`,
		evidence:
			`"${a.text}", each time after calls that brought no answer the agent had not ` +
			`already had (${a.from === a.to ? `call ${a.from}` : `calls ${a.from}–${a.to}`}; ` +
			`threshold: ${a.threshold} turns; compared without case, numbers or paths).`,
	};
}

export function waitingText(a: {
	tool: string;
	label: string;
	count: number;
	first: number;
	to: number;
	waited: string;
	lastWait: string;
	bound: string;
	maxPolls: number;
}): SignalText {
	return {
		headline: `Waited ${a.waited} on ${shortName(a.tool, 24)}: same answer ${times(a.count)}`,
		evidence:
			`Call: ${a.label}. Polled at calls ${a.first}–${a.to}, each after a wait no shorter ` +
			`than the one before (the last ${a.lastWait}), always the same answer (bound: ` +
			`${a.bound} waited or ${a.maxPolls} polls).`,
	};
}

export function sleptText(a: { slept: string; sleeps: number; first: number; to: number; bound: string }): SignalText {
	return {
		headline: `Slept ${a.slept} in ${a.sleeps} calls in a row`,
		evidence:
			`Calls ${a.first}–${a.to}: nothing but sleeps, no call in between that looked ` +
			`at anything (bound: ${a.bound}).`,
	};
}

function after(call: number): string {
	return call < 0 ? "before any tool call" : `after call ${call}`;
}

export function echoText(a: { text: string; times: number; at: number; threshold: number }): SignalText {
	return {
		headline: `One message repeats itself ${times(a.times)}`,
		evidence:
			`"${a.text}" comes ${times(a.times)} in a single assistant message, ${after(a.at)} (threshold: ` +
			`${a.threshold}; compared without case, numbers or paths).`,
	};
}

export function sameAnswerText(a: { text: string; count: number; at: number; threshold: number }): SignalText {
	return {
		headline: `Same answer given ${times(a.count)} in a row`,
		evidence:
			`"${a.text}": the same text-only answer in ${a.count} turns one after another, ${after(a.at)} and no ` +
			`tool call between (threshold: ${a.threshold}).`,
	};
}

export function compactionText(a: { count: number; overflows: number; from: number; threshold: number }): SignalText {
	const overflow = a.overflows ? ` (${a.overflows} of them context-overflow errors)` : "";
	return {
		headline: `Context compacted ${times(a.count)} with nothing landing`,
		evidence:
			`${a.count} compactions${overflow} ${a.from < 0 ? "before any tool call" : `since call ${a.from}`}, ` +
			`and no edit, write or commit in between (threshold: ${a.threshold}).`,
	};
}

export function retryText(a: {
	label: string;
	count: number;
	first: number;
	to: number;
	wordings: number;
	threshold: number;
}): SignalText {
	return {
		headline: `Same command failed ${times(a.count)}, nothing changed`,
		evidence:
			`Command: ${a.label}. Failed at calls ${a.first}–${a.to}` +
			(a.wordings > 1 ? `, its error worded ${a.wordings} ways` : "") +
			`; no edit, write or file-changing command between (threshold: ${a.threshold}).`,
	};
}
