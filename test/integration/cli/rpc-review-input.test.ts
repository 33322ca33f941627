// Golden input through the real `pi --mode rpc`: a small scripted run (parallel reads, a new
// file from `write`, an `edit`, a long test run whose verdict is at its end) and the reviewer's
// first request exactly as the scripted server received it.
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

const PROMPT = "Add a clamp(x, lo, hi) helper in src/clamp.js, export it from src/index.js, and run the tests";
const CLAMP = [
	"export function clamp(x, lo, hi) {",
	"\tif (x < lo) return lo;",
	"\treturn x; // FORGOT-HI",
	"}",
	"",
].join("\n");
// About 3,000 characters of passing cases, then the verdict on the last lines.
const TEST_RUN = [
	'for i in $(seq 1 60); do echo "ok $i - case $i of the clamp suite passes"; done',
	'echo "not ok 61 - clamp(5, 0, 3) returned 5"',
	'echo "# tests 61, pass 60, fail 1 (VERDICT-LINE)"',
].join("; ");

/** The main model's run, one reply per step: parallel reads, a write and an edit together, the tests, a claim. */
function mainStep(step: number) {
	if (step === 0)
		return {
			toolCalls: [
				{ name: "read", args: { path: "package.json" } },
				{ name: "read", args: { path: "src/index.js" } },
			],
		};
	if (step === 1)
		return {
			toolCalls: [
				{ name: "write", args: { path: "src/clamp.js", content: CLAMP } },
				{
					name: "edit",
					args: {
						path: "src/index.js",
						edits: [
							{
								oldText: 'export { sum } from "./sum.js";\n',
								newText: 'export { sum } from "./sum.js";\nexport { clamp } from "./clamp.js";\n',
							},
						],
					},
				},
			],
		};
	if (step === 2) return { toolCalls: [{ name: "bash", args: { command: TEST_RUN } }] };
	return { text: "Added clamp and exported it; all tests pass." };
}

it("sends the reviewer the change first, paired calls, the end of a long test run and the prompt once", async () => {
	const repo = makeGitRepo({
		"package.json": '{ "name": "mini", "type": "module", "scripts": { "test": "node --test" } }\n',
		"src/index.js": 'export { sum } from "./sum.js";\n',
		"src/sum.js": "export const sum = (a, b) => a + b;\n",
	});
	let step = 0;
	const script = (req: ChatRequest) => {
		if (req.model === "reviewer") return { text: "clean" };
		return mainStep(step++);
	};
	const cli = await startCli({
		cwd: repo,
		script,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
	});
	try {
		await cli.run(PROMPT, 60_000);
		const reviews = cli.server.requests.filter((r) => r.model === "reviewer");
		expect(reviews.length).toBe(1);
		const input = textOf(reviews[0].messages.find((m) => m.role === "user")?.content);
		// The change itself, first: the new file's whole content as a diff, and the edit's hunk.
		const change = input.indexOf("## The change");
		expect(change).toBeGreaterThan(0);
		expect(change).toBeLessThan(input.indexOf("## This run"));
		expect(input).toContain("+++ b/src/clamp.js");
		expect(input).toContain("+\treturn x; // FORGOT-HI");
		expect(input).toContain('+export { clamp } from "./clamp.js";');
		// The verdict at the end of the long test run, and how much of its middle was left out.
		expect(input).toContain("# tests 61, pass 60, fail 1 (VERDICT-LINE)");
		expect(input).toMatch(/\[… \d[\d,]* characters left out …\]/);
		// Each result right after its own call, for the parallel reads.
		expect(input).toMatch(/read package\.json\n[^\n]*result[^\n]*\n\{ "name": "mini"/);
		expect(input).toMatch(/read src\/index\.js\n[^\n]*result[^\n]*\nexport \{ sum \}/);
		// The prompt once; the edit's arguments not as escaped JSON.
		expect(input.split(PROMPT).length - 1).toBe(1);
		expect(input).not.toContain('"oldText"');
		expect(input).not.toContain("\\n");
		// What is absent is said, not left for the reviewer to guess.
		expect(input).toMatch(/No WATCHDOG\.md/);
		expect(input).toContain("LSP pre-pass: off (lsp.enabled is false)");
	} finally {
		await cli.stop();
	}
});
