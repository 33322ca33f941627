// `watchdog_ask` (clarification on, main session): the reviewer's one question per user
// prompt when missing context keeps it from a concrete judgment. One TypeBox schema, shown to
// the model and read by the shared checker (model-call/); over-long texts are cut, not refused.
import type { Tool } from "@earendil-works/pi-ai";
import { type Static, Type } from "typebox";
import { checkArgs, trimStrings } from "../model-call/index.ts";
import { clip, isPlainObject } from "../util/index.ts";

export const ASK_LIMITS = { question: 1000, evidence: 2000 };

export const ASK_PARAMS = Type.Object({
	question: Type.String({
		minLength: 1,
		maxLength: ASK_LIMITS.question,
		description: "One focused question the agent (or, through it, the user) can answer.",
	}),
	evidence: Type.String({
		minLength: 1,
		maxLength: ASK_LIMITS.evidence,
		description:
			"What in the run or the repository you cannot judge without the answer: paths, tool output, the request.",
	}),
});

export type AskArgs = Static<typeof ASK_PARAMS>;

export const ASK_TOOL: Tool = {
	name: "watchdog_ask",
	description:
		"Ask the agent one question, at most once, when missing context (what a child " +
		"was told, whether work is on hold, what the user meant) keeps you from a concrete " +
		"judgment. Asking ends this review: nothing after it is read. Not for problems " +
		"you can already show: report those with watchdog_warn.",
	parameters: ASK_PARAMS as unknown as Tool["parameters"],
};

export function parseAskArgs(args: unknown): { ok: true; value: AskArgs } | { ok: false; error: string } {
	const given = trimStrings(args);
	// Cut before the check: an over-long question is still a question.
	const cut = isPlainObject(given)
		? {
				...given,
				question: cutText(given.question, ASK_LIMITS.question),
				evidence: cutText(given.evidence, ASK_LIMITS.evidence),
			}
		: given;
	const checked = checkArgs(ASK_PARAMS, cut);
	return checked.ok
		? { ok: true, value: { question: checked.value.question, evidence: checked.value.evidence } }
		: checked;
}

const cutText = (value: unknown, max: number) => (typeof value === "string" ? clip(value, max) : value);
