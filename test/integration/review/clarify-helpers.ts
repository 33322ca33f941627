// Shared by the clarification tests: settings, a scripted question, and ways to see what the
// reviewer was offered and what the history log holds.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { type Ctx, text, toolUse } from "./review-helpers.ts";

// No LSP pre-pass: these runs write TypeScript, and the language server is not what is tested here.
export const CLARIFY = wd({
	enabled: true,
	main: { model: "faux-reviewer/reviewer-model:high" },
	clarification: true,
	lsp: { enabled: false },
});
export const ask = (over: Record<string, unknown> = {}) =>
	toolUse("watchdog_ask", {
		question: "Did the user want greet to keep the name argument?",
		evidence: "The prompt says 'shorter' and greet now drops `name` in src/app.ts",
		...over,
	});

/** What the reviewer was offered and told, per call. */
export interface ReviewerView {
	tools: string[];
	system: string;
	input: string;
}
export const view = (ctx: unknown): ReviewerView => {
	// The transcript's leading system message carries the prompt and the tools offered.
	const messages = (ctx as Ctx).messages as Array<{
		role: string;
		content: unknown;
		toolsAdded?: Array<{ name: string }>;
	}>;
	const system = messages.find((m) => m.role === "system");
	return {
		tools: (system?.toolsAdded ?? []).map((t) => t.name),
		system: text(system?.content),
		input: text(messages.find((m) => m.role === "user")?.content),
	};
};
export const historyLines = (t: TestSession) =>
	readFileSync(join(t.agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
