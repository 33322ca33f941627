// Two ways an agent stops by handing its own work to the user, and one honest hand-off that
// looks like a stop but is not: a shell command given to the user to run ("run this, tell me
// when it's done and I'll continue") when the agent has a shell and nothing about the command
// needs the user; a string of questions the repository could answer, asked with nothing run;
// and work that is still running in the background. Pure.
import type { CallFact } from "./facts.ts";
import { type GatedPattern, gated, matches } from "./gated-pattern.ts";
import type { Segment } from "./log.ts";

/** The stop waits for the user to come back before it goes on. */
const COME_BACK = gated(
	new RegExp(
		String.raw`\b(?:let me know|tell me|ping me|report back) (?:when|once|after|if it)` +
			String.raw`|\bonce (?:you(?:'ve| have)?|that(?:'s| is)|it(?:'s| is)) (?:done|installed|finished|run|ran` +
			String.raw`|complete|set up)|\bwhen (?:you(?:'re| are) done|that(?:'s| is) done|it(?:'s| is) installed)` +
			String.raw`|\bthen i(?:'ll| will| can) (?:continue|proceed|carry on|finish|pick (?:it|this) up|go on)` +
			String.raw`|\bafter (?:you(?:'ve| have)? (?:run|installed|done)|that),? i(?:'ll| will| can)|` +
			"告诉我|我(?:再)?继续|然后继续|完成后",
		"i",
	),
	"let me know|tell me|ping me|report back|once|when|then i|after|告诉我|继续|完成后",
);
/** A fenced block or an inline command the user is asked to run. */
const FENCED = /```[\w-]*\n([\s\S]*?)```/g;
const INLINE_RUN = /\b(?:run|execute|type|paste)\b[^`\n]{0,40}`([^`\n]{3,200})`/gi;
const SHELL = new RegExp(
	String.raw`^(?:[!$>]\s*)?(?:sudo|curl|wget|npm|pnpm|yarn|npx|bun|pip3?|uv|poetry|cargo|rustup|go|make|brew|` +
		String.raw`apt(?:-get)?|python3?|node|git|docker|bash|sh|chmod|mkdir|cp|mv|ln|export|source|cd|corepack|nvm|` +
		String.raw`pyenv|conda|gem|bundle|composer|dotnet|mvn|gradle)\b`,
);
/** Only the user can do these: their password, their login, a GUI installer, their money or their production. */
const USERS_ONLY = new RegExp(
	String.raw`^(?:[!$>]\s*)?sudo\b|\b(?:login|log in|auth(?:enticate)?|signin|sign in|passwd|ssh-keygen|gpg)\b|` +
		String.raw`xcode-select --install|--cask\b|\bdeploy\b|\bpublish\b|\brelease\b|\bkubectl\b|\bterraform apply\b|` +
		String.raw`\bvercel\b|\bnetlify\b|\bfly deploy\b|\bgh auth\b|\bnpm (?:login|adduser)\b|\baws configure\b|` +
		String.raw`api[_-]?key|token|secret|password`,
	"i",
);

/** The shell commands a stop gives the user to run. */
export function commandsForUser(text: string): string[] {
	const out: string[] = [];
	for (const m of text.matchAll(FENCED))
		for (const line of (m[1] as string).split("\n")) if (SHELL.test(line.trim())) out.push(line.trim());
	for (const m of text.matchAll(INLINE_RUN)) if (SHELL.test((m[1] as string).trim())) out.push((m[1] as string).trim());
	return out.slice(0, 20);
}

/**
 * A command handed to the user that the agent could have run: the session has a shell (a
 * command ran), the stop waits for the user to come back, at least one of the commands needs
 * nothing only the user has, and nothing was delivered (the last command failed, or no file
 * was written in the segment). The facts are asked for only when the stop waits for the user.
 */
export function handedBack(
	text: string,
	factsOf: () => CallFact[],
	segment: Segment,
): { command: string; usersOnly: boolean } | undefined {
	if (!matches(COME_BACK, text, text.toLowerCase())) return undefined;
	const facts = factsOf();
	const end = Math.min(segment.endCall, facts.length);
	let shell = false;
	let wrote = false;
	let lastCommand: CallFact | undefined;
	for (let i = 0; i < end; i++) {
		const f = facts[i] as CallFact;
		if (f.command === undefined) continue;
		shell = true;
		if (i >= segment.firstCall) lastCommand = f;
	}
	for (let i = segment.firstCall; i < end; i++) if ((facts[i] as CallFact).wrote) wrote = true;
	const commands = commandsForUser(text);
	if (!commands.length) return undefined;
	const runnable = commands.find((c) => !USERS_ONLY.test(c));
	if (!runnable) return { command: commands[0] as string, usersOnly: true };
	if (!shell) return undefined;
	const stuck = lastCommand !== undefined && (lastCommand.isError || (lastCommand.exitCode ?? 0) !== 0);
	if (wrote && !stuck) return undefined;
	return { command: runnable, usersOnly: false };
}

/** A question about what the repository holds: its files, code, stack, scripts, configuration. */
const REPO_QUESTION = new RegExp(
	String.raw`\b(?:file|folder|director(?:y|ies)|repo(?:sitory)?|project|codebase|code|function|class|module|` +
		String.raw`package|dependenc(?:y|ies)|framework|library|version|config(?:uration)?|script|tests?|schema|database|` +
		String.raw`endpoint|api|component|language|stack|branch|entry ?point|build|env(?:ironment)? var)`,
	"i",
);
/** What only the user can say: a preference, a decision, a goal, a secret. */
const USERS_CALL = new RegExp(
	String.raw`\b(?:prefer|preference|would you like|do you want|want me|should i|shall i|which (?:option|approach|` +
		String.raw`one)|your (?:goal|priority|choice|call|decision)|decide|budget|deadline|credentials?|password|api key|` +
		String.raw`token)\b`,
	"i",
);
const MIN_QUESTIONS = 2;

/** Several questions the repository could answer, asked in a segment that ran nothing. */
export function asksInstead(text: string, segment: Segment): string[] | undefined {
	if (segment.endCall > segment.firstCall) return undefined;
	const questions = text
		.replace(/```[\s\S]*?(?:```|$)/g, " ")
		.split(/(?<=\?)\s+|\n+/)
		.map((s) => s.replace(/^[\s>*#_\d.)-]+/, "").trim())
		.filter((s) => s.endsWith("?") && REPO_QUESTION.test(s) && !USERS_CALL.test(s));
	return questions.length >= MIN_QUESTIONS ? questions : undefined;
}

/** The gated patterns, for the test that checks their words. */
export const HANDOFF_GATES: Record<string, GatedPattern> = { COME_BACK };
