// The claims and unfinished-stop checks test a text against a pattern only when it holds one of its words. Those words
// must be in every text the pattern matches, or a claim would go unseen: checked on texts generated from each
// pattern itself (fast-check's stringMatching, word boundaries left out, in lower, upper and mixed case).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLAIM_GATES } from "../../../src/evidence/claims-extract.ts";
import { HANDOFF_GATES } from "../../../src/evidence/handoff.ts";
import { IDLE_GATES } from "../../../src/evidence/unfinished.ts";
import { type GatedPattern, gated, matches } from "../../../src/evidence/gated-pattern.ts";

/** Texts the pattern's case-sensitive form, without its word boundaries, matches; in any case. */
function textsFor(gate: GatedPattern) {
	const { source, flags } = gate.pattern;
	const loose = new RegExp(source.replace(/\\b/g, ""), flags.replace("i", ""));
	return fc
		.tuple(fc.stringMatching(loose), fc.constantFrom("as", "upper", "title", "flip"))
		.map(([text, how]) =>
			how === "upper"
				? text.toUpperCase()
				: how === "title"
					? text.replace(/\b[a-z]/g, (c) => c.toUpperCase())
					: how === "flip"
						? [...text].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("")
						: text,
		);
}

describe("the evidence checks' gated patterns", () => {
	it("skip only texts the pattern would not match", () => {
		for (const [name, gate] of Object.entries({ ...CLAIM_GATES, ...HANDOFF_GATES, ...IDLE_GATES })) {
			let matched = 0;
			fc.assert(
				fc.property(textsFor(gate), (text) => {
					const match = gate.pattern.test(text);
					if (match) matched++;
					expect(matches(gate, text, text.toLowerCase()), `${name} on ${JSON.stringify(text)}`).toBe(match);
				}),
				{ numRuns: 1500 },
			);
			// Most generated texts match (word boundaries aside): the check means something for each pattern.
			expect(matched, name).toBeGreaterThan(150);
		}
	});

	it("never tests a text without the words, and tests one with them", () => {
		let tested = 0;
		const pattern = /foo|bar/;
		const spy = {
			...gated(pattern, "foo|bar"),
			pattern: { test: (t: string) => (tested++, pattern.test(t)) } as RegExp,
		};
		expect(matches(spy, "nothing here", "nothing here")).toBe(false);
		expect(tested).toBe(0);
		expect(matches(spy, "a Foo", "a foo")).toBe(false); // the pattern is case-sensitive; the words only gate it
		expect(tested).toBe(1);
		expect(matches(spy, "a bar", "a bar")).toBe(true);
	});
});
