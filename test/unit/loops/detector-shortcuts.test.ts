// The loop detector's speed-ups must change nothing: each fast piece against its definition
// (test/support/detector-reference.ts), on generated input. A bash call's subjects come from a
// memo (asked twice, so the second answer is the memo's); a message's word counts from a typed
// table (values chosen to collide in it); the scan merges the detector's signals without copying
// them, reading each one's text only at the end. The dev-equivalence bench checks the same on the
// real sessions.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateTranscript } from "../../../bench/scan-transcript.ts";
import { callStream, take } from "../../../bench/synthetic-calls.ts";
import { subjectsOf } from "../../../src/loops/normalize.ts";
import { timesSaid } from "../../../src/loops/text-loops.ts";
import { scanSession } from "../../../src/scan/scan-session.ts";
import { makeCallRecord } from "../../../src/transcript/index.ts";
import {
	commandSubjectsReference,
	scanLoopSignalsReference,
	timesSaidReference,
} from "../../support/detector-reference.ts";
import { seededRandom } from "../../support/seeded-random.ts";
import { tempDir } from "../../support/temp.ts";

describe("loop detector speed-ups", () => {
	it("a bash call's subjects from the memo are the ones worked out afresh, long commands included", () => {
		const commands: string[] = [];
		for (const raw of take(callStream({ seed: 11 }), 6000))
			if (raw.name === "bash" && typeof raw.args.command === "string") commands.push(raw.args.command);
		const rand = seededRandom(5);
		const parts = ["cat a.ts", "npm test", "cd src &&", "FOO=1", "| grep x", "> out.txt", "git diff v1..v2", "# note"];
		for (let i = 0; i < 300; i++) {
			let c = "";
			for (let n = 1 + Math.floor(rand() * 5); n > 0; n--) c += `${parts[Math.floor(rand() * parts.length)]} `;
			commands.push(c);
		}
		commands.push(`cat ${"x".repeat(1200)}.ts b.md`, `echo ${"word ".repeat(400)} > notes.txt`);
		expect(new Set(commands).size).toBeGreaterThan(100);
		for (const command of [...commands, ...commands]) {
			const call = makeCallRecord(0, "bash", { command }, "", false);
			expect(subjectsOf(call), command).toEqual(commandSubjectsReference(command));
		}
	});

	it("word counts from the typed table are the Map's, with colliding, negative and zero hashes", () => {
		const rand = seededRandom(17);
		for (let round = 0; round < 2000; round++) {
			const n = Math.floor(rand() * 300);
			const spread = 1 + Math.floor(rand() * 40);
			const base = Math.floor(rand() * 2 ** 32) | 0;
			const hashes: number[] = [];
			// A few values, often the same mod the table's size (multiples of 2^k), some negative.
			for (let i = 0; i < n; i++) hashes.push((base + Math.floor(rand() * spread) * (1 << (rand() * 20))) | 0);
			if (n > 0 && rand() < 0.3) hashes[0] = 0;
			expect([...timesSaid(hashes)]).toEqual(timesSaidReference(hashes));
		}
	});

	it("the scan's loop signals are the ones merged as before, on the scan bench's transcript", async () => {
		const file = join(tempDir("pi-watchdog-loop-merge-"), "transcript.jsonl");
		generateTranscript(file, 4_000_000);
		const report = await scanSession(file);
		expect(report.loop.signals.length).toBeGreaterThan(20);
		expect(report.loop.signals).toEqual(await scanLoopSignalsReference(file));
	});
});
