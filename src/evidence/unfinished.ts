// Unfinished stops: how a segment's last turn ended, told without a model. An empty final
// message, a result given only in hidden reasoning, a next step announced and never taken, a
// question the agent could answer itself ("should I continue?", permission for work the user
// already asked for), "still running" with nothing running. A stop that genuinely needs the
// user (credentials, publishing or deploying, pushing to a shared remote, spending money,
// destructive steps, a product decision) is a sign-off: shown, never nudged. Pure.
import type { CallFact } from "./facts.ts";
import { type GatedPattern, gated, matches } from "./gated-pattern.ts";
import { asksInstead, handedBack } from "./handoff.ts";
import type { FactSource, Segment } from "./log.ts";

export type IdleKind =
	| "empty"
	| "hidden-result"
	| "announced"
	| "self-question"
	| "waiting"
	| "handed-back"
	| "asks-instead"
	| "sign-off";

export interface IdleSignal {
	kind: IdleKind;
	/** False for a sign-off: a stop that needs the user is not unfinished. */
	unfinished: boolean;
	/** The last tool call before the stop (-1: none in the session). */
	at: number;
	evidence: string;
	/** The words of the stop that matter (an announcement, a question), short. */
	words: string;
	/** What the agent should do next, for a nudge. */
	nextStep: string;
}

const TAIL_CHARS = 1200;

/** The end of a message as its last sentences, code blocks left out. */
function lastSentences(text: string, n: number): string[] {
	const plain = text.replace(/```[\s\S]*?(```|$)/g, " ").replace(/[’‘]/g, "'");
	const parts = plain
		.slice(-TAIL_CHARS)
		.split(/(?<=[.!?:])\s+|\n+/)
		.map((s) => s.replace(/^[\s>*#_-]+|[\s*_]+$/g, "").trim())
		.filter((s) => /[A-Za-z]/.test(s));
	return parts.slice(-n);
}

/** The action words an announced step names (exported for the test that checks `announces`). */
export const ACTIONS =
	"run|re-?run|check|fix|implement|update|add|write|create|look|investigate|verify|test|start|continue|" +
	"proceed|make|try|commit|read|open|search|inspect|review|apply|refactor|remove|build|compile|install|" +
	"wait|monitor|poll|edit|change|move|rename|delete|finish|complete|address|handle|examine|explore|debug|set " +
	"up|configure|clean|tackle|work|do|get|see|find|compare|analy[sz]e|re-?check|re-?test";
// "let me …", "next, I'll …": a lead, an optional adverb, then an action word. Matched in two steps, the lead
// (found anywhere) and then the action word right after it: one regex of the three compiled at its first use in
// about 10 ms (a cost every process with a settle paid), the two take about 0.3 ms. Equal to the one regex,
// because no other way of reading the lead can put an action word after it: no adverb is an action word, and an
// action word never starts with a space (a unit test compares them on generated sentences).
const ANNOUNCE_LEAD = new RegExp(
	`\\b(?:let me|let's|i(?:'ll| will| am going to|'m going to| need to)|now i(?:'ll| ` +
		`will)|next,? i(?:'ll| will)?|next step(?: is)?:?|then i(?:'ll| ` +
		`will))\\s+(?:now\\s+|first\\s+|then\\s+|also\\s+|quickly\\s+|just\\s+|go ` +
		`ahead and\\s+)?`,
	"gi",
);
const ACTION_HERE = new RegExp(`(?:${ACTIONS})\\b`, "iy");

/** Whether the sentence announces a next step: a lead and an action word right after it. */
export function announces(sentence: string): boolean {
	ANNOUNCE_LEAD.lastIndex = 0;
	for (let lead = ANNOUNCE_LEAD.exec(sentence); lead; lead = ANNOUNCE_LEAD.exec(sentence)) {
		ACTION_HERE.lastIndex = lead.index + lead[0].length;
		if (ACTION_HERE.test(sentence)) return true;
		ANNOUNCE_LEAD.lastIndex = lead.index + 1;
	}
	return false;
}
const NOT_ANNOUNCE = new RegExp(
	String.raw`^(?:if|once|when|after|whenever|unless)\b|\bif (?:so|needed|necessary` +
		String.raw`|required|that)\b|\b(if you|you can|you could|want me|would you|once you` +
		String.raw`|when you|after you|i'll leave|i'll let you|for you to)\b|\?`,
	"i",
);

const ASKS_USER = gated(
	new RegExp(
		String.raw`\?|\b(let me know|if you (?:agree|want|approve|prefer|'d like` +
			String.raw`|would like)|your (?:call|decision|approval|go-ahead|confirmation|input)` +
			String.raw`|(?:need|needs|require|requires|waiting (?:for|on)) (?:your|you|the user` +
			String.raw`|a human|manual)|please (?:confirm|provide|approve|run|add|set|log ?in` +
			String.raw`|authenticate|choose|decide))\b`,
		"i",
	),
	"?|let me know|if you|your|need|require|waiting|please",
);
const SIGN_OFF = new RegExp(
	String.raw`\b(credentials?|api[- ]?keys?|access tokens?|passwords?|secrets?|log ?in` +
		String.raw`|login|sign ?in|authenticat\w*|2fa|otp|publish\w*|release|deploy\w*` +
		String.raw`|production|prod|push(?:ing)? (?:to|the|it|this)|force[- ]push` +
		String.raw`|merge (?:to|into) (?:main|master)|pay(?:ment|ing)?|purchase|billing|buy` +
		String.raw`|spend\w*|subscription|delet\w+|drop (?:the )?(?:table|database)` +
		String.raw`|destroy\w*|wipe|irreversible|rm -rf|reset --hard|which (?:option` +
		String.raw`|approach|one|do you)|prefer(?:ence)?|decide|decision|trade-?off|approve` +
		String.raw`|approval|sign[- ]off|recommend\w*)\b`,
	"i",
);

const SELF_QUESTION = gated(
	new RegExp(
		String.raw`\b(should i|shall i|do you want me to|would you like me to|want me to` +
			String.raw`|may i|can i|ok(?:ay)? (?:for me )?to|ready for me to|good to` +
			String.raw`|is it ok(?:ay)? (?:if|to))\b([^?]*)\?`,
		"i",
	),
	"?",
);
const GENERIC_GO_ON = new RegExp(
	String.raw`\b(continue|proceed|go ahead|keep going|carry on|move on|do (?:it|that` +
		String.raw`|this|so)|finish|complete (?:it|the task|this))\b`,
	"i",
);
const ACTION_WORD = new RegExp(`\\b(${ACTIONS})\\b`, "i");
const OFFER = /\b(also|additionally|as well|too|instead|or|any other|anything else|further|else)\b/i;
const STOP_WORDS = new Set(
	(
		"the this that these those with from into your have will would should could about " +
		"them then than what which when where while there their also just more some such " +
		"very been being after before over under again still even each every other same " +
		"make sure file files code change changes test tests"
	).split(" "),
);

const WAITING = gated(
	new RegExp(
		String.raw`\b(still running|(?:is|are) (?:still )?running|waiting (?:for|on|until)` +
			String.raw`|will (?:check|report|get) back|check back|once it (?:finishes|completes` +
			String.raw`|is done|ends)|(?:still )?in progress|let it (?:run|finish))\b`,
		"i",
	),
	"running|waiting|will|check back|once it|in progress|let it",
);

function words(text: string): string[] {
	return text
		.toLowerCase()
		.split(/[^a-z0-9_]+/)
		.filter((w) => w.length >= 4 && !STOP_WORDS.has(w));
}

function clipWords(text: string, max = 160): string {
	const t = text.replace(/\s+/g, " ").trim();
	return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/** Whether work is running in the background: started and not yet seen to finish. */
function somethingRunning(facts: CallFact[], end: number): boolean {
	let running = false;
	for (let i = 0; i < end; i++) {
		const f = facts[i] as CallFact;
		if (f.background) running = true;
		else if (f.kind === "poll") running = !f.finished;
	}
	return running;
}

/** How the segment stopped, when that stop is unfinished or a sign-off; undefined for a proper finish. */
export function unfinishedStop(source: FactSource, segment: Segment): IdleSignal | undefined {
	const stop = segment.stop;
	// No assistant message after the last call: the recording ends mid-run (killed, interrupted,
	// cut), and an error stop is the provider's or the harness's, not the agent's choice.
	if (!stop.spoke || stop.error) return undefined;
	const count = Array.isArray(source) ? source.length : source.calls;
	// Read only where the verdict turns on them: a log that defers its facts builds them then.
	const facts = () => (Array.isArray(source) ? source : source.facts);
	const at = Math.min(segment.endCall, count) - 1;
	const text = stop.text.trim();
	// The asked result delivered as a file the prompt names (a report, a results file): finished.
	if (!text && !stop.thinking && deliveredFile(facts(), segment)) return undefined;
	if (!text) {
		if (stop.thinking)
			return {
				kind: "hidden-result",
				unfinished: true,
				at,
				words: "",
				evidence: "the final message has hidden reasoning only: no visible text reached the user",
				nextStep:
					"State your result in your reply: the conclusion you reached in your reasoning is not visible to anyone.",
			};
		return {
			kind: "empty",
			unfinished: true,
			at,
			words: "",
			evidence: "the final message is empty",
			nextStep: "Finish with the answer the task asked for: what you did, what you verified and what is left.",
		};
	}
	const handed = handedBack(text, facts, segment);
	if (handed?.usersOnly)
		return {
			kind: "sign-off",
			unfinished: false,
			at,
			words: clipWords(handed.command),
			evidence: `the stop needs the user to run what only they can: \`${clipWords(handed.command, 100)}\``,
			nextStep: "",
		};
	if (handed) {
		const shown = clipWords(handed.command, 100);
		return {
			kind: "handed-back",
			unfinished: true,
			at,
			words: clipWords(handed.command),
			evidence: `handed the user a command it could run itself and waits for them: \`${shown}\``,
			nextStep:
				`Run it yourself (\`${clipWords(handed.command, 80)}\`, non-interactively if it asks), then go on ` +
				`with the task. Ask the user only for what needs them (a password, a login, a purchase).`,
		};
	}
	const asked = asksInstead(text, segment);
	if (asked)
		return {
			kind: "asks-instead",
			unfinished: true,
			at,
			words: clipWords(asked.join(" ")),
			evidence:
				`asked ${asked.length} questions the repository could answer, and ran nothing to look: ` +
				`"${clipWords(asked[0] as string, 100)}"`,
			nextStep:
				"Look these up yourself (read the files, list the folders, run the scripts' help) and go on; ask the user " +
				"only what the repository cannot tell you.",
		};
	const tail = lastSentences(text, 5);
	const joined = tail.join(" ");
	if (matches(ASKS_USER, joined, joined.toLowerCase()) && SIGN_OFF.test(joined)) {
		const asked = tail.filter((s) => ASKS_USER.pattern.test(s) || SIGN_OFF.test(s)).at(-1) ?? tail.at(-1) ?? "";
		return {
			kind: "sign-off",
			unfinished: false,
			at,
			words: clipWords(asked),
			evidence: `the stop needs the user: "${clipWords(asked)}"`,
			nextStep: "",
		};
	}
	const last = tail.slice(-2);
	const final = last.at(-1) ?? "";
	const question = final.includes("?") ? SELF_QUESTION.pattern.exec(final) : null;
	if (question) {
		const object = question[2] ?? "";
		const generic = GENERIC_GO_ON.test(object) && !OFFER.test(object);
		// Permission for work the user already asked for: the user's prompt names the same action
		// and what it acts on ("fix the parser" … "Should I fix the parser?").
		const asked = new Set(words(segment.prompt));
		const verb = ACTION_WORD.exec(object)?.[1]?.toLowerCase();
		const prompt = segment.prompt.toLowerCase();
		const overlap =
			verb !== undefined &&
			!OFFER.test(object) &&
			new RegExp(`\\b${verb.slice(0, Math.min(5, verb.length))}`).test(prompt) &&
			words(object).some((w) => w !== verb && asked.has(w));
		if (generic || overlap)
			return {
				kind: "self-question",
				unfinished: true,
				at,
				words: clipWords(final),
				evidence:
					`stopped on a question it can answer itself: "${clipWords(final)}"` +
					`${overlap ? " (the user's request already covers it)" : ""}`,
				nextStep:
					"Go ahead without asking: the request already covers this step. Ask only what " +
					"needs the user (credentials, publishing, destructive steps, product decisions).",
			};
	}
	const waiting = last.find((s) => matches(WAITING, s, s.toLowerCase()));
	const running = waiting !== undefined && somethingRunning(facts(), Math.min(segment.endCall, count));
	// Saying truthfully that started work is still running (and will be checked on) is a hand-off.
	if (running) return undefined;
	if (waiting)
		return {
			kind: "waiting",
			unfinished: true,
			at,
			words: clipWords(waiting),
			evidence: `says it is waiting, but nothing it started is still running: "${clipWords(waiting)}"`,
			nextStep: "Nothing is running in the background: look at the result you already have and take the next step.",
		};
	for (const s of last) {
		if (announces(s) && !NOT_ANNOUNCE.test(s) && (s === final || final.endsWith(":") || final.length < 40))
			return {
				kind: "announced",
				unfinished: true,
				at,
				words: clipWords(s),
				evidence: `announced a next step and stopped without a tool call after it: "${clipWords(s)}"`,
				nextStep: `Take the step you announced ("${clipWords(s, 100)}"): make that tool call now.`,
			};
	}
	return undefined;
}

/** The segment's last call wrote a file whose name the prompt gives: the result is that file. */
function deliveredFile(facts: CallFact[], segment: Segment): boolean {
	const last = facts[Math.min(segment.endCall, facts.length) - 1];
	if (!last || last.index < segment.firstCall || !last.wrote || !last.path) return false;
	const name = last.path.replace(/\\/g, "/").replace(/^.*\//, "");
	return name.length > 2 && segment.prompt.includes(name);
}

/** The gated patterns, for the test that checks their words. */
export const IDLE_GATES: Record<string, GatedPattern> = { ASKS_USER, WAITING, SELF_QUESTION };
