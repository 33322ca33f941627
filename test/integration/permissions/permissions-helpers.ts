// What the permission tests in real sessions share: child tool permissions in real foreground
// launches, where the parent is a real in-process Pi session and each child a real Pi session on
// its runtime with our watchdog. The rules go in `<agentDir>/extensions/subagent/config.json`; only
// the models' judgement is scripted: the child's calls (main faux) and the arbiter's answer
// (reviewer faux), read back from the child's session file and the watchdog's history.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AssistantMessage, fauxAssistantMessage, type FauxResponseStep } from "@earendil-works/pi-ai";
import type { TestSession } from "../../support/pi-session.ts";
import { wd, writeJson } from "../../support/settings-files.ts";
import { text, toolUse } from "../review/review-helpers.ts";

export const ARBITER_ON = wd({
	enabled: true,
	main: { model: "faux-reviewer/reviewer-model" },
	children: { enabled: true },
});

export function writeRules(agentDir: string, rules: unknown): string {
	const file = join(agentDir, "extensions", "subagent", "config.json");
	writeJson(file, typeof rules === "string" ? rules : { permissions: { rules } });
	return file;
}

export const decision = (d: unknown, reason: unknown = "fits the task") =>
	toolUse("permission_decision", { decision: d, reason });

type Ctx = { messages: Array<{ role: string; content: unknown }> };

/**
 * The reviewer faux answers the arbiter's calls from `answers` in order (recording what it was
 * shown) and every other call (a review) with a clean reply.
 */
export function arbiterScript(t: TestSession, answers: FauxResponseStep[]): { inputs: string[] } {
	const inputs: string[] = [];
	const queue = [...answers];
	t.reviewer.setResponses(
		Array.from(
			{ length: 40 },
			() =>
				async (ctx: any, options: any, state: any, model: any): Promise<AssistantMessage> => {
					// The faux provider is shown the messages only: the arbiter's input is known by its heading.
					const shown = (ctx as Ctx).messages.map((m) => text(m.content)).join("\n");
					if (!shown.includes("## The call waiting for your decision"))
						return fauxAssistantMessage("Nothing to report.");
					inputs.push(shown);
					const next = queue.shift();
					if (!next) return fauxAssistantMessage("no answer scripted");
					return typeof next === "function" ? await next(ctx, options, state, model) : next;
				},
		),
	);
	return { inputs };
}

/** What the parent's `subagent` calls returned, one result after another. */
export const subagentResult = (t: TestSession) =>
	t.session.messages
		.filter((m: any) => m.role === "toolResult" && m.toolName === "subagent")
		.map((m: any) => text(m.content))
		.join("\n");

/** The tool results the child's calls got, by tool name, read from the child's own session file. */
export function childResults(t: TestSession): Array<{ tool: string; text: string; isError: boolean }> {
	const parentResult = subagentResult(t);
	const file = /session (\S+\.jsonl)/.exec(parentResult)?.[1];
	if (!file) throw new Error(`no child session in: ${parentResult}`);
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((l) => l.type === "message" && l.message.role === "toolResult")
		.map((l) => ({ tool: l.message.toolName, text: text(l.message.content), isError: l.message.isError }));
}

export function permissionLines(t: TestSession): any[] {
	const file = join(t.agentDir, "watchdog", "history.jsonl");
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((e) => e.kind === "permission");
}

/** One worker launch whose child makes `calls` in turn and then answers. */
export async function launch(
	t: TestSession,
	calls: Array<[string, Record<string, unknown>]>,
	task = "Look at README.md and report what it says",
	agent = "worker",
): Promise<void> {
	t.main.setResponses([
		toolUse("subagent", { agent, task }),
		...calls.map(([name, args]) => toolUse(name, args)),
		fauxAssistantMessage("Child done."),
		fauxAssistantMessage("Parent done."),
	]);
	await t.session.prompt("Have a worker look at the README");
	await t.session.waitForIdle();
}
