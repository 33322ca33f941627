// outcomeText decides whether to rewrite a result by a quicker test than the rewrites (a text with
// no colon is not searched for times): that must never change what it returns. Checked against the
// plain definition, every pattern applied in turn, on random texts full of near misses, and on the
// results of the real sessions.
import { describe, expect, it } from "vitest";
import { outcomeText } from "../../../src/loops/normalize.ts";
import { readSessionEvents } from "../../../src/scan/read-session.ts";
import { devSessionFiles } from "../../support/dev-sessions.ts";
import { seededRandom } from "../../support/seeded-random.ts";

/** The definition: the three rewrites, always, in the same order. */
function reference(result: string, isError: boolean): string {
	const text = result
		.replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g, "<time>")
		.replace(/\b\d\d:\d\d:\d\d(?:\.\d+)?\b/g, "<time>")
		.replace(/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b/g, "<duration>")
		.trim();
	const empty = text === "" || /^\(?no output\)?\.?$/i.test(text);
	return `${isError ? "E" : ""}${empty ? "<empty>" : text}`;
}

const PIECES = [
	"2026-07-01T10:00:00Z",
	"2026-07-01 10:00",
	"2026-07-01T10:00:00.123+02:00",
	"2026-07-01",
	"10:00:00",
	"10:00:00.5",
	"1:00:00",
	"10:00",
	"x10:00:00",
	"12ms",
	"12 ms",
	"1.5s",
	"3 seconds",
	"4sec",
	"5 secs",
	"6msx",
	"7 m",
	"8.",
	"9:",
	":",
	"-",
	".",
	" ",
	"\n",
	"a",
	"s",
	"ms",
	"0",
	"42",
	"(no output)",
	"é",
];

function randomText(rand: () => number): string {
	let s = "";
	const n = Math.floor(rand() * 12);
	for (let i = 0; i < n; i++) s += PIECES[Math.floor(rand() * PIECES.length)];
	return s;
}

describe("outcomeText", () => {
	it("rewrites exactly as the three patterns applied in turn: random texts of times, durations and near misses", () => {
		const rand = seededRandom(29);
		let rewritten = 0;
		for (let i = 0; i < 20_000; i++) {
			const text = randomText(rand);
			const isError = rand() < 0.2;
			const want = reference(text, isError);
			expect(outcomeText(text, isError), JSON.stringify(text)).toBe(want);
			if (want.includes("<time>") || want.includes("<duration>")) rewritten++;
		}
		expect(rewritten).toBeGreaterThan(5000);
	});

	it("rewrites exactly as the definition on every result of the development sessions", async () => {
		let results = 0;
		for (const file of devSessionFiles()) {
			for await (const event of readSessionEvents(file)) {
				if (event.type !== "call") continue;
				results++;
				expect(outcomeText(event.call.result, event.call.isError)).toBe(
					reference(event.call.result, event.call.isError),
				);
			}
		}
		expect(results).toBeGreaterThan(1000);
	});
});
