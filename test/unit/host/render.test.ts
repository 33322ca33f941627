// Findings as the TUI draws them, rendered to text at 40, 80 and 160 columns: nothing runs past
// the width, the title and evidence are there collapsed, and the details when expanded.
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { makeFinding } from "../../../src/findings/index.ts";
import { renderFindings } from "../../../src/host/index.ts";

// Colours as ANSI codes, as a real theme would add them (the width must not count them).
const theme = {
	fg: (_c: string, t: string) => `\u001b[33m${t}\u001b[39m`,
	bold: (t: string) => `\u001b[1m${t}\u001b[22m`,
} as never;

const finding = makeFinding(
	{
		summary: "parser.ts drops the last token of every line that ends in a comment, so the totals are off by one",
		evidence: "src/parser.ts:40 slices to length - 1\nnpm test: 3 failures in parser.test.ts",
		recommendedAction: "Keep the last token; add a test for a trailing comment",
		importance: "high",
		severity: "blocker",
		category: "correctness",
	},
	"main",
);

describe("findings in the TUI", () => {
	for (const width of [40, 80, 160]) {
		it(`fits ${width} columns, collapsed and expanded`, () => {
			for (const expanded of [false, true]) {
				const lines = renderFindings([finding], "sent to the agent", expanded, theme).render(width);
				const text = lines.join("\n").replace(/\u001b\[[0-9;]*m/g, "");
				expect(lines.every((l) => visibleWidth(l) <= width)).toBe(true);
				expect(text.replace(/\s+/g, " ")).toContain("Watchdog Blocker: parser.ts drops the last token");
				expect(text.replace(/\s+/g, " ")).toContain("src/parser.ts:40 slices to length - 1");
				if (expanded)
					expect(text.replace(/\s+/g, " ")).toContain("Keep the last token; add a test for a trailing comment");
				else expect(text).not.toContain("Keep the last token");
			}
		});
	}
});
