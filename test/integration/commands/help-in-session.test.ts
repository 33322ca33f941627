// `/subagents-watchdog help <topic>` in a real Pi session shows the shipped doc's section.
import { afterEach, expect, it } from "vitest";
import { startSession, type TestSession } from "../../support/pi-session.ts";

let open: TestSession | undefined;
afterEach(async () => {
	await open?.dispose();
	open = undefined;
});

it("shows the section of the docs the topic names, and the topics without one", async () => {
	const t = (open = await startSession());
	const lsp = (await t.command("/subagents-watchdog help lsp")).map((n) => n.message).join("\n");
	expect(lsp).toMatch(/^## The LSP pre-pass\n/);
	expect(lsp).toContain("(docs/review.md)");
	const index = (await t.command("/subagents-watchdog help")).map((n) => n.message).join("\n");
	expect(index).toContain("/subagents-watchdog help [topic]");
	expect(index).toMatch(/one of install, settings, commands, /);
});
