// Golden reviewer inputs from scripted runs in a real Pi session (faux models, real git, real
// tools): what the reviewer is sent holds the change itself (a new file from `write` as a
// diff), each result under its call, the verdict at the end of a long test run, and the
// user's prompt once; a change too large for its room is cut fairly and the run keeps its end.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { type Ctx, firstUser, ON } from "./review-helpers.ts";

const calls = (...list: Array<[string, Record<string, unknown>]>) =>
	fauxAssistantMessage(
		list.map(([name, args]) => fauxToolCall(name, args as Parameters<typeof fauxToolCall>[1])),
		{ stopReason: "toolUse" },
	);

// A test run that prints 150 passing cases, then its verdict on the last two lines.
const TEST_RUN = [
	'for i in $(seq 1 150); do echo "ok $i - parses case $i"; done',
	'echo "not ok 151 - parses an empty line"',
	'echo "# pass 150 fail 1 GOLDEN-VERDICT"',
].join("; ");

it("sends the change, paired calls, a test run's verdict and each prompt once, run after run", async () => {
	const repo = makeGitRepo({ "src/parse.js": "export const parse = (s) => s.split(',');\n", "README.md": "# p\n" });
	const t = await startSession({ cwd: repo, userSettings: ON });
	const inputs: string[] = [];
	const capture = (ctx: unknown) => (inputs.push(firstUser(ctx as Ctx)), fauxAssistantMessage("clean"));
	t.main.setResponses([
		calls(["read", { path: "src/parse.js" }], ["read", { path: "README.md" }], ["bash", { command: "echo listed" }]),
		calls(
			["write", { path: "src/lines/split.js", content: "export const lines = (s) => s.split('\\n'); // GOLDEN-NEW\n" }],
			["bash", { command: TEST_RUN }],
		),
		fauxAssistantMessage("Done; the suite passes."),
		calls(["edit", { path: "README.md", edits: [{ oldText: "# p\n", newText: "# parse\n" }] }]),
		fauxAssistantMessage("Renamed the heading."),
	]);
	t.reviewer.setResponses([capture, capture]);
	try {
		await t.session.prompt("Add a lines() helper in src/lines/split.js and run the tests");
		await t.session.waitForIdle();
		await t.session.prompt("Now rename the README heading to parse");
		await t.session.waitForIdle();
		expect(inputs).toHaveLength(2);
		const [first, second] = inputs;
		// The new file, as a diff, before the run.
		expect(first.indexOf("+export const lines = (s) => s.split('\\n'); // GOLDEN-NEW")).toBeGreaterThan(0);
		expect(first.indexOf("+++ b/src/lines/split.js")).toBeLessThan(first.indexOf("## This run"));
		expect(first).toContain('write src/lines/split.js (1 line(s); the file as it is now is under "The change")');
		// Each result under its own call.
		expect(first).toMatch(/\[Tool call\] read src\/parse\.js\n\[Tool result\]\nexport const parse/);
		expect(first).toMatch(/\[Tool call\] read README\.md\n\[Tool result\]\n# p\n/);
		expect(first).toMatch(/\[Tool call\] bash\n\$ echo listed\n\[Tool result\]\nlisted\n/);
		// The verdict at the end of the long test run, its middle counted.
		expect(first).toMatch(
			/ok 1 - parses case 1\n[\s\S]*\[… [\d,]+ characters left out …\][\s\S]*# pass 150 fail 1 GOLDEN-VERDICT/,
		);
		// The prompt once, in the scope; the run points to it.
		expect(first.split("Add a lines() helper").length - 1).toBe(1);
		expect(first).toContain('[User] (request 1 under "What the user asked", above)');
		// The second run: its own change only, its own prompt once.
		expect(second).toMatch(/-# p\n\+# parse/);
		expect(second).not.toContain("GOLDEN-NEW");
		expect(second.split("Now rename the README heading").length - 1).toBe(1);
		expect(second).toContain('[User] (request 2 under "What the user asked", above)');
	} finally {
		await t.dispose();
	}
});

it("fits a change larger than its room: every file keeps a share, and the run keeps its end", async () => {
	const repo = makeGitRepo({ "small.txt": "one\n" });
	const t = await startSession({ cwd: repo, userSettings: ON });
	let input = "";
	const huge = Array.from({ length: 3000 }, (_, i) => `line ${i} of the generated table`).join("\n");
	t.main.setResponses([
		calls(["write", { path: "table.txt", content: `${huge}\n` }], ["write", { path: "small.txt", content: "two\n" }]),
		fauxAssistantMessage("Generated the table. FINAL-WORDS"),
	]);
	t.reviewer.setResponses([(ctx) => ((input = firstUser(ctx as Ctx)), fauxAssistantMessage("clean"))]);
	try {
		await t.session.prompt("Generate the table and bump small.txt");
		await t.session.waitForIdle();
		expect(input.length).toBeLessThanOrEqual(24_000);
		expect(input).toMatch(/-one\n\+two/);
		expect(input).toContain("+line 0 of the generated table");
		expect(input).toMatch(/\[… [\d,]+ more characters of table\.txt; read "table\.txt" shows the rest\]/);
		expect(input).toMatch(/FINAL-WORDS\n<<<END DATA \w+>>>$/);
	} finally {
		await t.dispose();
	}
});
