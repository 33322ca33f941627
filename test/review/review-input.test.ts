import { describe, expect, it } from "vitest";
import { buildReviewInput, INPUT_BUDGET } from "../../src/review/review-input.ts";
import { addPrompt, EMPTY_SCOPE, SCOPE_MAX_CHARS, SCOPE_MAX_PROMPTS, scopeFromEntries, supersedes } from "../../src/review/scope.ts";
import { headAndTail, renderTurnDelta } from "../../src/review/turn-delta.ts";

describe("scope", () => {
	it("keeps at most 8 prompts of 2,000 characters, later ones adding", () => {
		let scope = EMPTY_SCOPE;
		for (let i = 1; i <= 10; i++) scope = addPrompt(scope, `request ${i} ${"x".repeat(i === 10 ? 5000 : 10)}`);
		expect(scope.prompts).toHaveLength(SCOPE_MAX_PROMPTS);
		expect(scope.prompts[0]).toMatch(/^request 3 /);
		expect(scope.prompts.at(-1)?.length).toBe(SCOPE_MAX_CHARS);
		expect(scope.prompts.at(-1)?.endsWith("…")).toBe(true);
	});

	it("lets an explicit change of course supersede earlier requests, and ignores empty input", () => {
		let scope = addPrompt(addPrompt(EMPTY_SCOPE, "build a CLI"), "add a --json flag");
		expect(addPrompt(scope, "   ")).toBe(scope);
		scope = addPrompt(scope, "Scratch that, write a web page instead");
		expect(scope.prompts).toEqual(["Scratch that, write a web page instead"]);
		for (const s of ["Actually, let's drop the CLI", "Forget the previous plan", "Never mind, new task: docs", "change of plans: ship it"]) expect(supersedes(s)).toBe(true);
		for (const s of ["Actually the tests pass now", "also add a flag", "instead-of is a word"]) expect(supersedes(s)).toBe(false);
	});

	it("restores the latest scope from session entries", () => {
		const entries = [
			{ type: "custom", customType: "watchdog-scope", data: { prompts: ["a"] } },
			{ type: "message" },
			{ type: "custom", customType: "watchdog-scope", data: { prompts: ["a", "b"] } },
			{ type: "custom", customType: "watchdog-scope", data: { prompts: [3] } },
		];
		expect(scopeFromEntries(entries).prompts).toEqual(["a", "b"]);
	});
});

describe("turn delta", () => {
	it("renders the run without the model's hidden reasoning", () => {
		const delta = renderTurnDelta(
			[
				{ type: "message", message: { role: "user", content: "fix the bug" } },
				{ type: "message", message: { role: "assistant", content: [{ type: "thinking", thinking: "SECRET PLAN" }, { type: "text", text: "On it." }, { type: "toolCall", name: "edit", arguments: { path: "a.ts" } }] } },
				{ type: "message", message: { role: "toolResult", toolName: "edit", content: [{ type: "text", text: "Edited a.ts" }], details: { diff: "-old\n+new" } } },
				{ type: "message", message: { role: "toolResult", toolName: "bash", isError: true, content: [{ type: "text", text: "exit 1" }] } },
				{ type: "custom_message", customType: "watchdog-finding", content: "earlier finding" },
				{ type: "custom", customType: "watchdog-note" },
			],
			"watchdog-finding",
		);
		expect(delta).not.toContain("SECRET PLAN");
		expect(delta).toContain("[User]\nfix the bug");
		expect(delta).toContain("[Agent]\nOn it.");
		expect(delta).toContain('[Tool call] edit {"path":"a.ts"}');
		expect(delta).toContain("-old\n+new");
		expect(delta).toContain("[Tool result] bash (error)\nexit 1");
		expect(delta).toContain("[Watchdog finding delivered to the agent]\nearlier finding");
	});

	it("keeps the first 6,000 characters and the tail of an over-long delta", () => {
		const text = `${"H".repeat(7000)}${"M".repeat(30000)}${"T".repeat(3000)}`;
		const cut = headAndTail(text, 10_000);
		expect(cut.length).toBeLessThanOrEqual(10_000);
		expect(cut.startsWith("H".repeat(6000))).toBe(true);
		expect(cut).toMatch(/\[… \d+ characters of the middle left out …\]/);
		expect(cut.endsWith("T".repeat(3000))).toBe(true);
		expect(headAndTail("short", 100)).toBe("short");
	});
});

describe("reviewer input", () => {
	it("stays within 24,000 characters with every part at its largest", () => {
		const input = buildReviewInput({
			changedPaths: Array.from({ length: 500 }, (_, i) => `src/module-${i}/file.ts`),
			scope: Array.from({ length: 8 }, (_, i) => `request ${i} ${"s".repeat(1990)}`),
			guidance: "g".repeat(20_000),
			signals: ["lsp: x".repeat(2000)],
			delta: `${"D".repeat(6000)}${"m".repeat(100_000)}END-OF-RUN`,
		});
		expect(input.length).toBeLessThanOrEqual(INPUT_BUDGET);
		expect(input).toContain("## Changed paths (500)");
		expect(input).toMatch(/\[… cut at 1500 characters\]/);
		expect(input).toMatch(/## What the user asked, oldest first\n\[\d earlier request\(s\) left out\]/);
		expect(input).toContain("8. request 7"); // the newest request is kept whole
		expect(input).toContain("## Standing instructions (WATCHDOG.md)");
		expect(input).toContain("D".repeat(6000));
		expect(input.endsWith("END-OF-RUN")).toBe(true);
	});

	it("gives a short run in full and leaves out empty parts", () => {
		const input = buildReviewInput({ changedPaths: ["a.ts"], scope: [], delta: "[User]\nhi" });
		expect(input).toContain("## Changed paths (1)\na.ts");
		expect(input).not.toContain("What the user asked");
		expect(input).not.toContain("WATCHDOG.md");
		expect(input.endsWith("## This run\n[User]\nhi")).toBe(true);
	});
});
