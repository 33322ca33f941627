// The announced-step check runs in two steps (a lead, then an action word right after it) because the one
// regex it replaces took about 10 ms to compile at its first use. It must say exactly what that regex says:
// compared on generated sentences built from its own pieces, near misses and noise.
import { describe, expect, it } from "vitest";
import { ACTIONS, announces } from "../../../src/evidence/unfinished.ts";
import { seededRandom } from "../../support/seeded-random.ts";

/** The definition: the one regex the check was, over the same action words. */
const ANNOUNCE = new RegExp(
	`\\b(?:let me|let's|i(?:'ll| will| am going to|'m going to| need to)|now i(?:'ll| ` +
		`will)|next,? i(?:'ll| will)?|next step(?: is)?:?|then i(?:'ll| ` +
		`will))\\s+(?:now\\s+|first\\s+|then\\s+|also\\s+|quickly\\s+|just\\s+|go ` +
		`ahead and\\s+)?(?:${ACTIONS})\\b`,
	"i",
);

const PIECES = [
	"let me",
	"Let me",
	"LET ME",
	"let's",
	"let",
	"me",
	"i'll",
	"I'll",
	"i will",
	"I am going to",
	"i'm going to",
	"i need to",
	"now i'll",
	"now I will",
	"next",
	"Next,",
	"next, i",
	"next i will",
	"next step",
	"next step is",
	"next step:",
	"next step is:",
	"then i'll",
	"then I will",
	"then",
	"now",
	"first",
	"also",
	"quickly",
	"just",
	"go ahead and",
	"go",
	"ahead",
	"is",
	"will",
	"willcheck",
	"run",
	"rerun",
	"re-run",
	"running",
	"check",
	"checks",
	"set up",
	"setup",
	"analyse",
	"analyze",
	"analysis",
	"re-test",
	"do",
	"done",
	"doing",
	"the tests",
	"it",
	"model",
	"Hello",
	"scripted",
	"ı",
	"İ",
	"é",
	":",
	",",
	".",
	"!",
	"?",
	"-",
	"'",
];
const SPACES = [" ", " ", " ", "  ", "\t", "\n", "", " \u00a0"];

function sentence(rand: () => number): string {
	let s = "";
	const n = 1 + Math.floor(rand() * 9);
	for (let i = 0; i < n; i++)
		s += PIECES[Math.floor(rand() * PIECES.length)] + SPACES[Math.floor(rand() * SPACES.length)];
	return s;
}

describe("announces", () => {
	it("says what the one regex says, on 100,000 generated sentences", () => {
		const rand = seededRandom(41);
		let yes = 0;
		for (let i = 0; i < 100_000; i++) {
			const s = sentence(rand);
			const want = ANNOUNCE.test(s);
			expect(announces(s), JSON.stringify(s)).toBe(want);
			if (want) yes++;
		}
		expect(yes).toBeGreaterThan(5_000);
	});

	it("finds an announcement after a lead that is not one, and none in plain text", () => {
		expect(announces("Let me know. Now I'll run the tests")).toBe(true);
		expect(announces("let me then check it")).toBe(true);
		expect(announces("Next step: re-run the build")).toBe(true);
		expect(announces("I will now now check")).toBe(false);
		expect(announces("Hello from the scripted model.")).toBe(false);
	});
});
