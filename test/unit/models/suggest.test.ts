import { describe, expect, it } from "vitest";
import {
	closestRefs,
	describeUnknown,
	editDistance,
	unknownModel,
	UnknownModelError,
} from "../../../src/models/suggest.ts";
import type { Registry } from "../../../src/models/reviewer-model.ts";

const known = (refs: string[], available: string[] = []) =>
	refs.map((ref) => ({ ref, available: available.includes(ref) }));
const CATALOG = known(
	[
		"openai/gpt-5",
		"openai/gpt-5.5",
		"openai/gpt-4o",
		"anthropic/claude-opus-4-8",
		"google/gemini-3-pro",
		"local/reviewer",
	],
	["openai/gpt-5.5"],
);

describe("suggestions for a model Pi does not know", () => {
	it("counts edits", () => {
		expect(editDistance("gpt-9", "gpt-5")).toBe(1);
		expect(editDistance("", "abc")).toBe(3);
		expect(editDistance("lcoal", "local")).toBe(2);
		expect(editDistance("same", "same")).toBe(0);
	});

	it("names the nearest refs, preferring ones with credentials on a tie, and leaves out far ones", () => {
		expect(closestRefs("openai/gpt-9", CATALOG)).toEqual(["openai/gpt-5", "openai/gpt-4o", "openai/gpt-5.5"]);
		expect(closestRefs("opnai/gpt-5.5", CATALOG).slice(0, 2)).toEqual(["openai/gpt-5.5", "openai/gpt-5"]);
		expect(closestRefs("local/reveiwer", CATALOG)).toEqual(["local/reviewer"]);
		expect(closestRefs("OpenAI/GPT-5.5", CATALOG)[0]).toBe("openai/gpt-5.5");
		// Nothing close: still the single closest, so there is something to go on.
		expect(closestRefs("xx/qqqqqqqqqqqqqqqqqqqqqq", [...CATALOG, ...known(["xx/q"])])).toEqual(["xx/q"]);
		expect(closestRefs("a/b", [])).toEqual([]);
	});

	it("says whether the provider or only the model is unknown, keeping the thinking suffix", () => {
		expect(describeUnknown("openai", "gpt-9", CATALOG, "high")).toEqual({
			problem: 'Pi knows no model "gpt-9" from provider "openai"',
			suggestions: ["openai/gpt-5:high", "openai/gpt-4o:high", "openai/gpt-5.5:high"],
		});
		expect(describeUnknown("opnai", "gpt-5.5", CATALOG).problem).toBe('Pi knows no provider "opnai"');
	});

	it("refuses through the registry only what it does not know", () => {
		const models = CATALOG.map((k) => ({ provider: k.ref.split("/")[0], id: k.ref.split("/").slice(1).join("/") }));
		const reg = {
			find: (p: string, id: string) => models.find((m) => m.provider === p && m.id === id),
			getAll: () => models,
			getAvailable: () => models.filter((m) => m.id === "gpt-5.5"),
		} as unknown as Registry;
		expect(unknownModel(reg, "openai", "gpt-5")).toBeUndefined();
		const error = unknownModel(reg, "openai", "gpt-9");
		expect(error).toBeInstanceOf(UnknownModelError);
		expect(error?.message).toBe(
			'not saved: Pi knows no model "gpt-9" from provider "openai", so openai/gpt-9 cannot run. Did you mean openai/gpt-5, openai/gpt-4o or openai/gpt-5.5?',
		);
		const empty = { find: () => undefined, getAll: () => [], getAvailable: () => [] } as unknown as Registry;
		expect(unknownModel(empty, "a", "b")?.message).toMatch(/Pi knows no models at all/);
	});
});
