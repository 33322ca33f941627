// Shared by the boundary-review tests: scripted replies and ways to look into a session.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { textOf as text } from "../../support/openai-server.ts";
import type { TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

export const ON = wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model:high" } });
export const toolUse = (name: string, args: Record<string, unknown>) =>
	fauxAssistantMessage([fauxToolCall(name, args as Parameters<typeof fauxToolCall>[1])], { stopReason: "toolUse" });
export const warn = (over: Record<string, unknown> = {}) =>
	toolUse("watchdog_warn", {
		summary: "The new greet() drops the name argument",
		evidence: "src/app.ts line 1: greet ignores `name` and returns a constant",
		recommendedAction: "Use the name in the returned greeting",
		importance: "high",
		severity: "blocker",
		category: "correctness",
		...over,
	});
export { text };
export type Ctx = { messages: Array<{ role: string; content: unknown }> };
export const firstUser = (ctx: Ctx) => text(ctx.messages.find((m) => m.role === "user")?.content);
export const allText = (ctx: Ctx) => ctx.messages.map((m) => text(m.content)).join("\n");
export const entryKinds = (t: TestSession) =>
	t.session.sessionManager.getEntries().map((e: any) => (e.customType ? `${e.type}:${e.customType}` : e.type));
