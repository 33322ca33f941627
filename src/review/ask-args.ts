// `watchdog_ask` (clarification on, main session): the reviewer's one question per user
// prompt when missing context keeps it from a concrete judgment. One TypeBox schema, shown to
// the model and read by the checker below; over-long texts are cut, not refused.
import type { Tool } from "@earendil-works/pi-ai";
import { type Static, Type } from "typebox";
import { clip } from "../util/index.ts";

export const ASK_LIMITS = { question: 1000, evidence: 2000 };

export const ASK_PARAMS = Type.Object({
	question: Type.String({ minLength: 1, maxLength: ASK_LIMITS.question, description: "One focused question the agent (or, through it, the user) can answer." }),
	evidence: Type.String({ minLength: 1, maxLength: ASK_LIMITS.evidence, description: "What in the run or the repository you cannot judge without the answer: paths, tool output, the request." }),
});

export type AskArgs = Static<typeof ASK_PARAMS>;

export const ASK_TOOL: Tool = {
	name: "watchdog_ask",
	description:
		"Ask the agent one question, at most once, when missing context (what a child was told, whether work is on hold, what the user meant) keeps you from a concrete judgment. Asking ends this review: nothing after it is read. Not for problems you can already show: report those with watchdog_warn.",
	parameters: ASK_PARAMS as unknown as Tool["parameters"],
};

export function parseAskArgs(args: unknown): { ok: true; value: AskArgs } | { ok: false; error: string } {
	if (typeof args !== "object" || args === null || Array.isArray(args)) return { ok: false, error: "the arguments must be a JSON object" };
	const { question, evidence } = args as Record<string, unknown>;
	const problems: string[] = [];
	if (typeof question !== "string" || !question.trim()) problems.push("question must be a non-empty string");
	if (typeof evidence !== "string" || !evidence.trim()) problems.push("evidence must be a non-empty string");
	if (problems.length) return { ok: false, error: problems.join("; ") };
	return { ok: true, value: { question: clip((question as string).trim(), ASK_LIMITS.question), evidence: clip((evidence as string).trim(), ASK_LIMITS.evidence) } };
}
