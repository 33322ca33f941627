// Loops told from what the agent says and from the session's own housekeeping rather than from
// its tool calls: one message that repeats a sentence or a run of words many times over (a
// model stuck generating), the same text-only answer turn after turn with no call between, and
// context compaction (or context-overflow errors) again and again with nothing landing between.
// Pure, bounded state.
import { clip } from "../util/index.ts";
import { compactionText, echoText, sameAnswerText } from "./loop-text.ts";
import { sentenceKey, sentencesOf } from "./restating.ts";
import type { LoopSignal } from "./signal.ts";

/** Words of one message looked at for repetition (a babbling message can be huge). */
const ECHO_WORDS = 3000;
/** A run of words this long, said this many times in one message, is the model repeating itself. */
const SHINGLE = 12;
const ECHO_TIMES = 4;
/** A shingle needs words of letters: a table's `| --- | --- |` rows are layout, not speech. */
const MIN_LETTER_WORDS = 5;
/** A sentence said this many times in one message. */
const SENTENCE_TIMES = 4;
const MIN_SENTENCE_WORDS = 4;
const ANSWER_KEY_CHARS = 400;

/** The most repeated sentence or run of words in one message, when it is repeated enough. */
export function echoIn(text: string): { text: string; times: number } | undefined {
	let best: { text: string; times: number } | undefined;
	const counts = new Map<string, number>();
	for (const sentence of sentencesOf(text)) {
		const key = sentenceKey(sentence);
		if (key.split(" ").filter((w) => /\p{L}/u.test(w)).length < MIN_SENTENCE_WORDS) continue;
		const n = (counts.get(key) ?? 0) + 1;
		counts.set(key, n);
		if (n >= SENTENCE_TIMES && (!best || n > best.times)) best = { text: clip(sentence.trim(), 100), times: n };
	}
	const words = text
		.slice(0, ECHO_WORDS * 12)
		.toLowerCase()
		.split(/\s+/)
		.filter(Boolean)
		.slice(0, ECHO_WORDS);
	const shingles = new Map<string, number>();
	for (let i = 0; i + SHINGLE <= words.length; i++) {
		const run = words.slice(i, i + SHINGLE);
		const key = run.join(" ");
		const seen = shingles.get(key);
		if (seen === undefined && run.filter((w) => /\p{L}{2}/u.test(w)).length < MIN_LETTER_WORDS) continue;
		const n = (seen ?? 0) + 1;
		shingles.set(key, n);
		if (n >= ECHO_TIMES && (!best || n > best.times)) best = { text: clip(key, 100), times: n };
	}
	return best;
}

export class TextLoops {
	private answer?: { key: string; text: string; count: number; from: number };
	private compactions: { count: number; overflows: number; from: number } = { count: 0, overflows: 0, from: -1 };

	reset(): void {
		this.answer = undefined;
		this.compactions = { count: 0, overflows: 0, from: -1 };
	}

	/** A tool call came: the next text-only answer starts a new run of answers. */
	called(): void {
		this.answer = undefined;
	}

	/** Something landed: compaction since then is the cost of work, not of a loop. */
	landed(): void {
		this.compactions = { count: 0, overflows: 0, from: -1 };
	}

	/** One assistant message's visible text; `lastCall` the index of the last call so far. */
	said(text: string, lastCall: number, sameAnswers: number): LoopSignal[] {
		const out: LoopSignal[] = [];
		const echo = echoIn(text);
		if (echo)
			out.push({
				kind: "echo",
				key: `echo:${sentenceKey(echo.text)}`,
				subject: `text:${sentenceKey(echo.text)}`,
				from: lastCall + 1,
				to: Math.max(lastCall, 0),
				count: echo.times,
				...echoText({ text: echo.text, times: echo.times, at: lastCall, threshold: ECHO_TIMES }),
				wayOut:
					"Your last message repeats itself. Stop, say in one or two sentences where the work stands, and take the " +
					"next concrete step.",
			});
		const key = sentenceKey(text.slice(0, ANSWER_KEY_CHARS * 2)).slice(0, ANSWER_KEY_CHARS);
		if (!key) return out;
		if (this.answer?.key === key) this.answer.count++;
		else this.answer = { key, text: clip(text.trim(), 100), count: 1, from: lastCall + 1 };
		const a = this.answer;
		if (a.count >= sameAnswers)
			out.push({
				kind: "same-answer",
				key: `same-answer:${key.slice(0, 160)}`,
				subject: `text:${key.slice(0, 160)}`,
				from: a.from,
				to: Math.max(lastCall, a.from),
				count: a.count,
				...sameAnswerText({ text: a.text, count: a.count, at: a.from - 1, threshold: sameAnswers }),
				wayOut:
					"You have given this same answer several times and nothing changed. Do something different: run the call " +
					"that settles the question, or tell the user plainly what blocks you.",
			});
		return out;
	}

	/** The context was compacted (or overflowed); the signal once that happened `threshold` times with nothing
	 * landing. */
	compacted(overflow: boolean, lastCall: number, threshold: number): LoopSignal[] {
		const c = this.compactions;
		if (c.count === 0) c.from = lastCall;
		c.count++;
		if (overflow) c.overflows++;
		if (c.count < threshold) return [];
		return [
			{
				kind: "compaction",
				key: "compaction",
				subject: "compaction",
				from: Math.max(c.from, 0),
				to: Math.max(lastCall, c.from, 0),
				count: c.count,
				...compactionText({ count: c.count, overflows: c.overflows, from: c.from, threshold }),
				wayOut:
					"The context keeps filling up and nothing lands in between. Stop reading more: write down what you know in " +
					"a few lines, make the one change it points to, or ask the user.",
			},
		];
	}
}
