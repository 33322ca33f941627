// outcomeText decides whether to rewrite a result by a quicker test than the rewrites (a digit
// followed by a colon and a digit, or by a unit's first letter): that must never change what it returns. Checked against the
// plain definition, every pattern applied in turn, on random texts full of near misses (the
// dev-equivalence bench checks it on the results of the real sessions too).
import { describe, expect, it } from "vitest";
import { outcomeText } from "../../../src/loops/normalize.ts";
import { outcomeReference as reference } from "../../support/outcome-reference.ts";
import { seededRandom } from "../../support/seeded-random.ts";

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
	"2\u00a0s",
	"7\tms",
	"8\u2003sec",
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
});
