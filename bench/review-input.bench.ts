// The reviewer's input at the settle: how its 24,000 characters are shared between the change
// (the diff, new files in full) and the record of the run for a typical run, and what building
// it costs on the settle path. A real repository of 40 files; the run edits three of them and
// writes a new one, among 40 tool calls of the synthetic agent (bench/synthetic-calls.ts) whose
// results keep their real sizes. Measured side by side in one process:
//   - capture: the git part (diff-index and ls-files for the changed paths, the new file read
//     through the guarded reader), next to one plain `git status` (what the change gate already pays);
//   - build: the pure part (the run's record, the change fitted, the input put together), for the
//     typical run and for a run of 1,000 calls.
// Target: the pure build of the typical run takes ≤ 5 ms (ratio = median / 5 ms).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGitRunner } from "../src/git/index.ts";
import { captureChange } from "../src/review/change-capture.ts";
import { changePaths } from "../src/review/change-text.ts";
import { buildReviewInput, INPUT_BUDGET } from "../src/review/review-input.ts";
import { renderTurnDelta } from "../src/review/turn-delta.ts";
import { commitAll, git } from "./git-repo.ts";
import { median, reportFailure, round, scratchDir } from "./stats.ts";
import { callStream, take } from "./synthetic-calls.ts";

const TARGET_MS = 5;
const ROUNDS = 31;
const PROMPT = "Make the order total apply each coupon once, add a test for it, and run the suite.";

const source = (name: string, n: number) =>
	Array.from(
		{ length: n },
		(_, i) => `export function ${name}Step${i}(x: number): number {\n\treturn x + ${i};\n}\n`,
	).join("\n");

type Entry = { type: string; message: Record<string, unknown> };

/** The run's session entries: the prompt, `calls` synthetic calls, the real edits and write, a closing claim. */
function runEntries(
	calls: number,
	edits: Array<{ path: string; before: string; after: string }>,
	added: string,
): Entry[] {
	const entries: Entry[] = [{ type: "message", message: { role: "user", content: [{ type: "text", text: PROMPT }] } }];
	const push = (id: string, name: string, args: Record<string, unknown>, text: string, details?: unknown) => {
		entries.push({
			type: "message",
			message: { role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], stopReason: "toolUse" },
		});
		entries.push({
			type: "message",
			message: {
				role: "toolResult",
				toolCallId: id,
				toolName: name,
				content: [{ type: "text", text }],
				...(details ? { details } : {}),
			},
		});
	};
	let i = 0;
	for (const c of take(callStream({ seed: 7 }), calls)) push(`c${i++}`, c.name, c.args, c.text, c.details);
	for (const e of edits)
		push(
			`e${i++}`,
			"edit",
			{ path: e.path, edits: [{ oldText: e.before, newText: e.after }] },
			`Successfully replaced 1 block(s) in ${e.path}.`,
			{
				diff: `-1 ${e.before}\n+1 ${e.after}`,
			},
		);
	push(
		`w${i++}`,
		"write",
		{ path: "src/coupons/apply-once.ts", content: added },
		"Successfully wrote to src/coupons/apply-once.ts",
	);
	entries.push({
		type: "message",
		message: {
			role: "assistant",
			content: [{ type: "text", text: "Coupons now apply once; all tests pass." }],
			stopReason: "stop",
		},
	});
	return entries;
}

async function main(): Promise<void> {
	const scratch = scratchDir("watchdog-review-input-");
	try {
		const root = scratch.root;
		for (let f = 0; f < 40; f++) writeFileSync(join(root, `file${f}.ts`), source(`f${f}`, 30));
		writeFileSync(join(root, "README.md"), "# bench\n");
		commitAll(root, "start");
		const baseline = git(root, "rev-parse", "HEAD").trim();
		const edits = [3, 11, 27].map((f) => ({
			path: `file${f}.ts`,
			before: `\treturn x + 4;\n}`,
			after: `\treturn x + 4 - discount(x);\n}`,
		}));
		for (const e of edits) {
			const path = join(root, e.path);
			const text = source(`f${e.path.slice(4, -3)}`, 30)
				.replace(e.before, e.after)
				.replace("return x + 9;", "return x + 9 * 2;");
			writeFileSync(path, text);
		}
		const added = source("applyOnce", 12);
		const newPath = "src/coupons/apply-once.ts";
		mkdirSync(join(root, "src/coupons"), { recursive: true });
		writeFileSync(join(root, newPath), added);
		const paths = [...edits.map((e) => e.path), newPath];
		const runner = createGitRunner(root);

		const capture: number[] = [];
		const status: number[] = [];
		let change = await captureChange({ root, git: runner, baseline }, paths);
		for (let r = 0; r < ROUNDS; r++) {
			let t = process.hrtime.bigint();
			change = await captureChange({ root, git: runner, baseline }, paths);
			capture.push(Number(process.hrtime.bigint() - t) / 1e6);
			t = process.hrtime.bigint();
			await runner.run(["--no-optional-locks", "status", "--porcelain=v2", "-z"]);
			status.push(Number(process.hrtime.bigint() - t) / 1e6);
		}
		if ("absent" in change) throw new Error(`no change captured: ${change.absent}`);

		const build = (entries: Entry[]) => {
			const delta = renderTurnDelta(entries, "watchdog-finding", {
				prompts: [PROMPT],
				shownFiles: changePaths(change),
			});
			return buildReviewInput({
				changedPaths: paths,
				change,
				scope: [PROMPT],
				guidance: [],
				signals: [],
				delta,
				nonce: "0123456789ab",
			});
		};
		const time = (entries: Entry[]) => {
			const out: number[] = [];
			for (let r = 0; r < ROUNDS + 5; r++) {
				const t = process.hrtime.bigint();
				build(entries);
				out.push(Number(process.hrtime.bigint() - t) / 1e6);
			}
			return out.slice(5); // the first rounds warm the JIT
		};
		const typical = runEntries(40, edits, added);
		const large = runEntries(1000, edits, added);
		const input = build(typical);
		const section = (title: string, next: string) => {
			const from = input.indexOf(title);
			const to = next ? input.indexOf(next, from) : input.length;
			return from < 0 ? 0 : to - from;
		};
		const changeChars = section("## The change", "## What the user asked");
		const runChars = section("## This run", "");
		const rest = input.length - changeChars - runChars;
		const share = (n: number) => round((100 * n) / INPUT_BUDGET, 1);
		const wholeRun = renderTurnDelta(typical, "watchdog-finding", {
			prompts: [PROMPT],
			shownFiles: changePaths(change),
		});
		const buildMs = median(time(typical));
		const largeMs = median(time(large));
		const ratio = buildMs / TARGET_MS;
		console.log(
			`typical run (40 calls, 3 files edited, 1 written): input ${input.length} of ${INPUT_BUDGET} characters: ` +
				`the change ${changeChars} (${share(changeChars)} %), the run ${runChars} (${share(runChars)} %; its record is ` +
				`${wholeRun.length} before fitting), the rest ${rest} (${share(rest)} %)`,
		);
		console.log(
			`capture (git diff-index + ls-files + the new file): median ${median(capture).toFixed(2)} ms, ` +
				`next to one git status: median ${median(status).toFixed(2)} ms (ratio ${(median(capture) / median(status)).toFixed(2)})`,
		);
		console.log(
			`build (pure): typical run median ${buildMs.toFixed(3)} ms; a 1,000-call run median ${largeMs.toFixed(3)} ms`,
		);
		console.log(`ratio build / ${TARGET_MS} ms: ${ratio.toFixed(3)} (target ≤ 1)`);
		console.log(
			JSON.stringify({
				bench: "review-input",
				ratio: round(ratio, 3),
				target: 1,
				pass: ratio <= 1,
				inputChars: input.length,
				changeChars,
				runChars,
				restChars: rest,
				changeShare: share(changeChars),
				runShare: share(runChars),
				runRecordChars: wholeRun.length,
				buildMs: round(buildMs, 3),
				buildMs1000: round(largeMs, 3),
				captureMs: round(median(capture), 2),
				gitStatusMs: round(median(status), 2),
			}),
		);
	} finally {
		scratch.cleanup();
	}
}

main().catch((error) => reportFailure("review-input", 1, error));
