// The model restating itself: the same sentence (a plan, a promise, "still running, let me
// check again") said turn after turn while the calls in between bring nothing new. Sentences
// are compared normalised (case, whitespace, punctuation and markup, numbers, paths), so a
// count or a file name that changes does not make a new sentence; a call with a new answer in
// between does start the count afresh. Pure, bounded state.
import { clip } from "../util/index.ts";
import type { LoopSignal } from "./signal.ts";
import { restatingText } from "./loop-text.ts";

/** What one assistant message may contribute: longer texts are cut (the start says the plan). */
const TEXT_CHARS = 4000;
const MAX_SENTENCES_PER_TURN = 40;
const MAX_TRACKED = 512;
/** A sentence needs this many words of letters to say anything ("OK.", "Continuing:" do not). */
const MIN_WORDS = 3;
const KEY_CHARS = 160;

export interface Restated {
	/** The normalised sentence. */
	key: string;
	/** The sentence as first said (short). */
	text: string;
	/** Turns it was said in, with nothing new in between. */
	count: number;
	/** The first call after it was first said, and the last call so far. */
	from: number;
	to: number;
}

interface Said {
	count: number;
	/** The news epoch at its last saying. */
	epoch: number;
	from: number;
	text: string;
}

/** A file name among a sentence's words: `notes.txt`, `(src.ts)`. */
const FILE_NAME = /^\W*[\w-]+\.[a-z][a-z0-9]{0,4}\W*$/;

/**
 * A sentence as compared: lower case, markup and punctuation gone, numbers as #, paths as
 * <path>. Word by word (linear in the text, whatever the model wrote), over its start only.
 */
export function sentenceKey(sentence: string): string {
	const words: string[] = [];
	// Only replaced words can leave runs of spaces, or spaces at the ends, to collapse.
	let replaced = false;
	let length = -1;
	for (const word of sentence
		.slice(0, 2 * KEY_CHARS)
		.toLowerCase()
		.split(/\s+/)) {
		if (!word) continue;
		// Past KEY_CHARS of plain words, what follows cannot change the key's first KEY_CHARS.
		if (!replaced && length > KEY_CHARS) break;
		// Most words are plain letters, or plain letters and a closing mark: kept without the replacements' cost.
		const plain = plainLength(word);
		if (plain >= word.length - 1) {
			words.push(plain === word.length ? word : word.slice(0, -1));
			length += plain + 1;
		} else if (word.includes("/") || word.includes("\\") || FILE_NAME.test(word)) {
			words.push("<path>");
			length += "<path>".length + 1;
		} else {
			words.push(word.replace(/\d+(?:[.,:]\d+)*/g, " # ").replace(/[^\p{L}\p{N}#]+/gu, " "));
			replaced = true;
		}
	}
	const key = words.join(" ");
	return (replaced ? key.replace(/\s+/g, " ").trim() : key).slice(0, KEY_CHARS);
}

/**
 * How much of a plain word is kept: its length when it is all a-z, one less when one closing mark
 * (`,.;:!?)`) follows the letters, else -1. A loop over the characters, cheaper than a regex.
 */
function plainLength(word: string): number {
	const last = word.length - 1;
	for (let i = 0; i < last; i++) {
		const c = word.charCodeAt(i);
		if (c < 97 || c > 122) return -1;
	}
	const c = word.charCodeAt(last);
	if (c >= 97 && c <= 122) return word.length;
	// , . ; : ! ? )
	const mark = c === 44 || c === 46 || c === 59 || c === 58 || c === 33 || c === 63 || c === 41;
	return mark && last > 0 ? last : -1;
}

function words(key: string): number {
	let n = 0;
	for (const w of key.split(" ")) if (w !== "<path>" && hasLetter(w)) n++;
	return n;
}

/** /[a-z]/ or /\p{L}/u: ASCII looked at a character at a time, anything else through the Unicode class. */
function hasLetter(word: string): boolean {
	for (let i = 0; i < word.length; i++) {
		const c = word.charCodeAt(i) | 32;
		if (c >= 97 && c <= 122) return true;
		if (word.charCodeAt(i) > 127) return /\p{L}/u.test(word);
	}
	return false;
}

/** The sentences of a message's visible text, without code blocks. */
export function sentencesOf(text: string): string[] {
	const plain = text.slice(0, TEXT_CHARS).replace(/```[\s\S]*?(?:```|$)/g, "\n");
	return plain.split(/\n+|(?<=[.!?;:])\s+/).slice(0, MAX_SENTENCES_PER_TURN);
}

export class Restating {
	/** Bumped by every call that brought something new. */
	private epoch = 0;
	private said = new Map<string, Said>();

	reset(): void {
		this.said.clear();
	}

	/** A call told the agent something new: what it says next is not a restatement. */
	news(): void {
		this.epoch++;
	}

	/**
	 * One assistant message's text, `lastCall` the index of the last call so far (-1: none). The
	 * signal for the sentence said most often with nothing new since its first saying, once that
	 * reaches `threshold` turns and at least one call came in between. `sentences`: the text's
	 * sentencesOf, when the caller has them already.
	 */
	add(text: string, lastCall: number, threshold: number, sentences = sentencesOf(text)): LoopSignal[] {
		const turn = new Set<string>();
		let best: Restated | undefined;
		for (const sentence of sentences) {
			const key = sentenceKey(sentence);
			if (turn.has(key) || words(key) < MIN_WORDS) continue;
			turn.add(key);
			let s = this.said.get(key);
			if (s && s.epoch === this.epoch) s.count++;
			else {
				if (s) this.said.delete(key);
				s = { count: 1, epoch: this.epoch, from: lastCall + 1, text: clip(sentence.trim(), 100) };
				this.said.set(key, s);
				if (this.said.size > MAX_TRACKED) this.said.delete(this.said.keys().next().value as string);
			}
			if (s.count >= threshold && lastCall >= s.from && (!best || s.count > best.count))
				best = { key, text: s.text, count: s.count, from: s.from, to: lastCall };
		}
		return best ? [restatingSignal(best, threshold)] : [];
	}
}

export function restatingSignal(r: Restated, threshold: number): LoopSignal {
	return {
		kind: "restating",
		key: `restating:${r.key}`,
		subject: `text:${r.key}`,
		from: r.from,
		to: r.to,
		count: r.count,
		...restatingText({ text: r.text, count: r.count, from: r.from, to: r.to, threshold }),
		wayOut:
			"You have said this before and nothing has changed since. Stop restating the " +
			"plan: take a different step (another check, or the edit that tests your idea), " +
			"or tell the user what blocks you.",
	};
}
