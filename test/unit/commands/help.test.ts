// `/subagents-watchdog help [topic]` shows the docs that ship with the package: each topic finds
// its section in the real docs/ folder, so renaming a heading without the topic fails here.
import { describe, expect, it } from "vitest";
import { HELP_TOPICS, helpFor, packageDocs, sections } from "../../../src/commands/help.ts";
import { completeArguments, parseCommand } from "../../../src/commands/watchdog-command.ts";

const docs = packageDocs();

describe("help", () => {
	it("parses a topic of one or more words", () => {
		expect(parseCommand("help")).toEqual({ kind: "help" });
		expect(parseCommand("help launch rules")).toEqual({ kind: "help", topic: "launch rules" });
		expect(completeArguments("help ls", [])?.map((c) => c.value)).toEqual(["help lsp"]);
	});

	it("finds every topic's section in the shipped docs", () => {
		for (const topic of HELP_TOPICS) expect(helpFor(topic, docs), topic).not.toMatch(/^No help/);
	});

	it("shows the section itself, with where it lives", () => {
		const lsp = helpFor("lsp", docs);
		expect(lsp.split("\n")[0]).toBe("## The LSP pre-pass");
		expect(lsp).toContain("(docs/review.md)");
		expect(lsp).not.toContain("## Evidence");
	});

	it("lists a whole doc's sections for a doc-wide topic", () => {
		const children = helpFor("children", docs);
		expect(children).toMatch(/Sections:\n {2}Launching child agents\n {2}Launch rules/);
		expect(children).not.toContain("worker#1");
	});

	it("shows a setting's reference row for its key", () => {
		const row = helpFor("lsp.idleMs", docs);
		expect(row).toContain("`lsp.idleMs`: shut the warm language server down after this long idle");
		expect(row).toContain("default: `300000`");
		expect(row).toContain("who may set it: you; project: any value");
	});

	it("finds a heading by its words, and names the topics when nothing matches", () => {
		expect(helpFor("stopped-subtree", docs).split("\n")[0]).toBe("## Stopped-subtree verification");
		expect(helpFor("quux", docs)).toMatch(/^No help on "quux"\. Topics: install, settings, /);
	});

	it("reads no heading inside a code block", () => {
		const doc = "# T\n\n## A\n\n```text\n## not a heading\n```\n\n## B\n";
		expect(sections(doc).map((s) => s.heading)).toEqual(["T", "A", "B"]);
	});
});
