// Loops told from what the agent says and from the session's own housekeeping rather than from
// its tool calls: one message that repeats a sentence or a run of words many times over (a
// model stuck generating), the same text-only answer turn after turn with no call between, and
// context compaction (or context-overflow errors) again and again with nothing landing between.
// Pure, bounded state.
import { clip } from "../util/index.ts";
import { compactionText, echoText, sameAnswerText } from "./loop-text.ts";
import { sentencesOf } from "./restating.ts";
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

const NON_ASCII = /[^\x00-\x7f]/;

/** A sentence as compared here: its words of letters, lower case (numbers, paths' digits, markup gone). */
function lettersOnly(text: string): string {
	// In ASCII the letters are a-z once lower-cased, which a plain class finds faster than \p{L}.
	if (!NON_ASCII.test(text))
		return text
			.toLowerCase()
			.replace(/[^a-z]+/g, " ")
			.trim();
	return text
		.toLowerCase()
		.replace(/[^\p{L}]+/gu, " ")
		.trim();
}

/** What makes two text-only answers the same answer: the letters of their start. */
function answerKey(text: string): string {
	return lettersOnly(text.slice(0, ANSWER_KEY_CHARS * 2)).slice(0, ANSWER_KEY_CHARS);
}

/** Words in a key of single-spaced words: its spaces, plus one. */
function wordCount(key: string): number {
	let n = 1;
	for (let at = key.indexOf(" "); at !== -1; at = key.indexOf(" ", at + 1)) n++;
	return n;
}

/**
 * The most repeated sentence or run of words in one message, when it is repeated enough.
 * `sentences`: the text's sentencesOf, when the caller has them already.
 */
export function echoIn(text: string, sentences?: string[]): { text: string; times: number } | undefined {
	let best: { text: string; times: number } | undefined;
	const counts = new Map<string, number>();
	const all = sentences ?? sentencesOf(text);
	// Fewer sentences than SENTENCE_TIMES cannot repeat one that often.
	for (const sentence of all.length >= SENTENCE_TIMES ? all : []) {
		// Table rows differ in their cells' numbers and paths: layout, not speech.
		if (sentence.trimStart().startsWith("|")) continue;
		const key = lettersOnly(sentence);
		if (wordCount(key) < MIN_SENTENCE_WORDS) continue;
		const n = (counts.get(key) ?? 0) + 1;
		counts.set(key, n);
		if (n >= SENTENCE_TIMES && (!best || n > best.times)) best = { text: clip(sentence.trim(), 100), times: n };
	}
	const run = repeatedRun(text);
	if (run && (!best || run.times > best.times)) best = run;
	return best;
}

/** A message's words (its runs of non-space characters, as split(/\s+/) gives them): where each is, its hash. */
interface Words {
	text: string;
	starts: number[];
	ends: number[];
	hashes: number[];
}

/** Whether a character is one of \s: ASCII by its code, anything else by the regex's own class. */
function isSpace(c: number): boolean {
	if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
	return c >= 128 && /\s/.test(String.fromCharCode(c));
}

/** The first `max` words of `text`, found in one pass over its characters (no word strings made). */
function wordsOf(text: string, max: number): Words {
	const words: Words = { text, starts: [], ends: [], hashes: [] };
	let i = 0;
	while (words.starts.length < max) {
		while (i < text.length && isSpace(text.charCodeAt(i))) i++;
		if (i >= text.length) break;
		const start = i;
		let h = 0x811c9dc5;
		for (let c = text.charCodeAt(i); i < text.length && !isSpace(c); c = text.charCodeAt(++i))
			h = Math.imul(h ^ c, 0x01000193);
		words.starts.push(start);
		words.ends.push(i);
		words.hashes.push(h);
	}
	return words;
}

function wordAt(words: Words, i: number): string {
	return words.text.slice(words.starts[i], words.ends[i]);
}

function sameWord(words: Words, a: number, b: number): boolean {
	const from = words.starts[a] as number;
	const other = words.starts[b] as number;
	const length = (words.ends[a] as number) - from;
	if (words.hashes[a] !== words.hashes[b] || (words.ends[b] as number) - other !== length) return false;
	for (let k = 0; k < length; k++)
		if (words.text.charCodeAt(from + k) !== words.text.charCodeAt(other + k)) return false;
	return true;
}

/**
 * The run of SHINGLE words said most often in a message, once it reaches ECHO_TIMES. Linear in
 * the words: each run is a rolling hash of its words' hashes, compared word by word when it repeats.
 */
function repeatedRun(text: string): { text: string; times: number } | undefined {
	const words = wordsOf(text.slice(0, ECHO_WORDS * 12).toLowerCase(), ECHO_WORDS);
	const count = words.starts.length;
	if (count < SHINGLE * ECHO_TIMES) return undefined;
	// How often each word is said, by its hash (words sharing a hash are counted together: never fewer).
	const said = timesSaid(words.hashes);
	const P = 0x01000193;
	let top = 1;
	for (let k = 1; k < SHINGLE; k++) top = Math.imul(top, P);
	let hash = 0;
	// Every word of a run said ECHO_TIMES times is itself said that often: a run holding a rarer
	// word cannot be one, and is not counted (most runs of a message that does not repeat itself).
	let lastRare = -1;
	const seen = new Map<number, { first: number; n: number }>();
	let best: { at: number; times: number } | undefined;
	for (let i = 0; i < count; i++) {
		const h = words.hashes[i] as number;
		if (i >= SHINGLE) hash = (hash - Math.imul(words.hashes[i - SHINGLE] as number, top)) | 0;
		hash = (Math.imul(hash, P) + h) | 0;
		if ((said[i] as number) < ECHO_TIMES) lastRare = i;
		if (i < SHINGLE - 1) continue;
		const start = i - SHINGLE + 1;
		if (lastRare >= start) continue;
		const at = seen.get(hash);
		if (!at) {
			seen.set(hash, { first: start, n: 1 });
			continue;
		}
		if (!sameRun(words, at.first, start)) continue; // a hash collision: not the same words
		// Layout repeats too (a table's `| --- |`): a run counts only with enough words of letters.
		if (at.n === 1 && !wordy(words, start)) {
			at.n = Number.NEGATIVE_INFINITY;
			continue;
		}
		at.n++;
		if (at.n >= ECHO_TIMES && (!best || at.n > best.times)) best = { at: at.first, times: at.n };
	}
	if (!best) return undefined;
	const run: string[] = [];
	for (let k = 0; k < SHINGLE; k++) run.push(wordAt(words, best.at + k));
	return { text: clip(run.join(" "), 100), times: best.times };
}

/**
 * How often each position's hash occurs among all of them: counted in an open-addressing table
 * of typed arrays (this runs on every assistant message; a Map of numbers cost more than the rest).
 */
export function timesSaid(hashes: number[]): Int32Array {
	let size = 16;
	while (size < hashes.length * 2) size *= 2;
	const mask = size - 1;
	const keys = new Int32Array(size);
	const counts = new Int32Array(size);
	const slots = new Int32Array(hashes.length);
	for (let i = 0; i < hashes.length; i++) {
		// Word hashes are int32 (Math.imul), as the table holds them.
		const h = (hashes[i] as number) | 0;
		let at = (h ^ (h >>> 15)) & mask;
		while (counts[at] !== 0 && keys[at] !== h) at = (at + 1) & mask;
		keys[at] = h;
		counts[at]++;
		slots[i] = at;
	}
	const times = new Int32Array(hashes.length);
	for (let i = 0; i < hashes.length; i++) times[i] = counts[slots[i] as number] as number;
	return times;
}

function wordy(words: Words, at: number): boolean {
	let n = 0;
	for (let k = 0; k < SHINGLE; k++) if (/\p{L}{2}/u.test(wordAt(words, at + k))) n++;
	return n >= MIN_LETTER_WORDS;
}

function sameRun(words: Words, a: number, b: number): boolean {
	for (let k = 0; k < SHINGLE; k++) if (!sameWord(words, a + k, b + k)) return false;
	return true;
}

export class TextLoops {
	private answer?: { key: string; text: string; count: number; from: number };
	/**
	 * A text-only answer not yet keyed: the first since a call has nothing to be compared with
	 * and is keyed only if another answer follows it before the next call (most are followed by one).
	 */
	private unkeyed?: { text: string; from: number };
	private compactions: { count: number; overflows: number; from: number } = { count: 0, overflows: 0, from: -1 };

	reset(): void {
		this.answer = undefined;
		this.unkeyed = undefined;
		this.compactions = { count: 0, overflows: 0, from: -1 };
	}

	/** A tool call came: the next text-only answer starts a new run of answers. */
	called(): void {
		this.answer = undefined;
		this.unkeyed = undefined;
	}

	/** Something landed: compaction since then is the cost of work, not of a loop. */
	landed(): void {
		this.compactions = { count: 0, overflows: 0, from: -1 };
	}

	/**
	 * One assistant message's visible text; `lastCall` the index of the last call so far; `sentences` its
	 * sentencesOf, when the caller has them already.
	 */
	said(text: string, lastCall: number, sameAnswers: number, sentences?: string[]): LoopSignal[] {
		const out: LoopSignal[] = [];
		const echo = echoIn(text, sentences);
		if (echo)
			out.push({
				kind: "echo",
				key: `echo:${lettersOnly(echo.text)}`,
				subject: `text:${lettersOnly(echo.text)}`,
				from: lastCall + 1,
				to: Math.max(lastCall, 0),
				count: echo.times,
				...echoText({ text: echo.text, times: echo.times, at: lastCall, threshold: ECHO_TIMES }),
				wayOut:
					"Your last message repeats itself. Stop, say in one or two sentences where the work stands, and take the " +
					"next concrete step.",
			});
		// One answer alone is a count of 1, which says nothing unless that is already the threshold.
		if (!this.answer && !this.unkeyed && sameAnswers > 1) {
			this.unkeyed = { text, from: lastCall + 1 };
			return out;
		}
		if (this.unkeyed) {
			// Keyed now, as it would have been when it came (a text without letters starts no run).
			const first = this.unkeyed;
			this.unkeyed = undefined;
			const firstKey = answerKey(first.text);
			if (firstKey) this.answer = { key: firstKey, text: clip(first.text.trim(), 100), count: 1, from: first.from };
		}
		const key = answerKey(text);
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
