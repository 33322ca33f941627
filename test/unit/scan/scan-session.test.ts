// The scan's verdict on a whole session: exact repetition is a loop wherever it happens; calls
// that only told the agent nothing new are a loop when the stretch never ends in a landing.
import { expect, it } from "vitest";
import { reportText, scanSession } from "../../../src/scan/scan-session.ts";
import { writeSessionFile } from "../../support/session-files.ts";

type Call = { name: string; args: Record<string, unknown>; result: string; say?: string };

/** A pi-subagents transcript of one prompt and these calls. */
function transcript(calls: Call[]): string {
	let ts = 1;
	const base = () => ({
		version: 1,
		source: "foreground",
		runId: "r1",
		agent: "builder",
		childIndex: 0,
		cwd: "/repo",
		ts: ts++,
		timestamp: "2026-07-01T10:00:00.000Z",
	});
	const lines: object[] = [
		{
			...base(),
			recordType: "message",
			sourceEventType: "initial_prompt",
			role: "user",
			text: "Port the change.",
			message: { role: "user", content: [{ type: "text", text: "Port the change." }] },
		},
	];
	calls.forEach((c, i) => {
		const text = c.say ? [{ type: "text", text: c.say }] : [];
		lines.push({
			...base(),
			recordType: "message",
			role: "assistant",
			message: {
				role: "assistant",
				content: [...text, { type: "toolCall", id: `c${i}`, name: c.name, arguments: c.args }],
				stopReason: "toolUse",
			},
		});
		lines.push({
			...base(),
			recordType: "message",
			role: "toolResult",
			message: {
				role: "toolResult",
				toolCallId: `c${i}`,
				toolName: c.name,
				content: [{ type: "text", text: c.result }],
				isError: false,
			},
		});
	});
	return writeSessionFile("probe_transcript.jsonl", lines);
}

const bash = (command: string, result: string): Call => ({ name: "bash", args: { command }, result });
/** The agent asks the same question about one file in eight different ways, and gets nothing. */
const probing: Call[] = [
	"",
	" | cat",
	" | wc -c",
	" | head -40",
	" | base64",
	" | cat -v",
	" | xxd",
	" | od -c",
].flatMap((pipe, i) => [
	bash(`git diff v1..v2 -- src/config.ts${pipe}`, "\n"),
	bash(`git show v2:src/part${i}.ts | head -5`, `export const part${i} = ${i};`),
]);
const landing: Call = {
	name: "write",
	args: { path: "/repo/docs/plan.md", content: "# Plan" },
	result: "Successfully wrote 6 bytes to /repo/docs/plan.md",
};

it("flags probing that never gets anywhere", async () => {
	const report = await scanSession(transcript(probing));
	expect(report.loop.flagged).toBe(true);
	expect(report.loop.signals.map((s) => s.kind)).toContain("stale");
	expect(report.loop.signals.every((s) => s.resolvedAt === undefined)).toBe(true);
	expect(reportText(report)).toMatch(/loops: \d signal\(s\) \(strongest: stale, calls 2–15\)\n {4}stale/);
});

it("lists the same probing without flagging it when something lands after it", async () => {
	const report = await scanSession(transcript([...probing, landing]));
	expect(report.loop.flagged).toBe(false);
	expect(report.loop.signals.find((s) => s.kind === "stale")).toMatchObject({ resolvedAt: probing.length });
	expect(reportText(report)).toMatch(
		/loops: none that lasted \(\d suspicion\(s\), each ended by something landing\)\n {4}stale .* \(then call 16 landed something\)/,
	);
});

it("flags a check re-run with the same result while nothing changed, even when something lands later", async () => {
	const check = bash("npx vitest run src/a.test.ts 2>&1 | tail -5", "Tests 4 passed (4)");
	const report = await scanSession(
		transcript([check, bash("git status --short", " M src/a.ts"), check, check, landing]),
	);
	expect(report.loop.flagged).toBe(true);
	expect(report.loop.signals).toEqual([expect.objectContaining({ kind: "rerun", from: 0, to: 3, resolvedAt: 4 })]);
});

it("flags the model restating itself turn after turn while its calls bring nothing new; not when they do", async () => {
	const say = "Still compiling. I will check the build log again in a moment.";
	const stuck = await scanSession(
		transcript(Array.from({ length: 5 }, () => ({ ...bash("tail -3 build.log", "compiling src/main.rs"), say }))),
	);
	expect(stuck.loop.flagged).toBe(true);
	expect(stuck.loop.signals.find((s) => s.kind === "restating")).toMatchObject({
		summary: "Same sentence said in 4 turns, nothing new between",
		from: 1,
		to: 3,
	});
	expect(reportText(stuck)).toMatch(
		/restating calls 1–3: Same sentence said in 4 turns, nothing new between\n {13}"I will check the build log again in a moment\.", each time after calls that brought no answer/,
	);
	const moving = await scanSession(
		transcript(
			Array.from({ length: 8 }, (_, i) => ({ ...bash("tail -3 build.log", `compiling crate ${i} of 8`), say })),
		),
	);
	expect(moving.loop.signals).toEqual([]);
});

it("lets polls between growing sleeps wait up to the bound, and flags them past it", async () => {
	const check = (s: number) => bash(`sleep ${s} && tail -3 build.log`, "compiling src/main.rs");
	const patient = await scanSession(transcript([10, 20, 40, 80, 160, 320, 600].map(check)));
	expect(patient.loop.signals).toEqual([]);
	const past = await scanSession(transcript([60, 120, 240, 480, 960, 1920].map(check)));
	expect(past.loop.flagged).toBe(true);
	expect(past.loop.signals.map((s) => s.kind)).toEqual(["waiting"]);
	expect(past.loop.signals[0]?.summary).toBe("Waited 62 min on bash: same answer 6 times");
	// The same checks with no sleep: a repeat at the usual threshold.
	const busy = await scanSession(
		transcript(Array.from({ length: 5 }, () => bash("tail -3 build.log", "compiling src/main.rs"))),
	);
	expect(busy.loop.signals.map((s) => s.kind)).toEqual(["repeat"]);
});
