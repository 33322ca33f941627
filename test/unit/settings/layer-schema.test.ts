// A layer is checked against the schema of the sections it sets (layerSchemaFor), not the whole schema: every key is
// optional, so the verdict must be the whole schema's to the letter: success, the parsed value, and each problem
// with its path and message in the same order, for layers right and wrong, strict or stripping unknown keys.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fullLayerSchema, layerSchemaFor } from "../../../src/settings/schema.ts";

const SECTIONS = Object.keys(fullLayerSchema().shape);
const VALUES: unknown[] = [
	true,
	false,
	0,
	5,
	-1,
	1.5,
	999_999,
	"concern",
	"blocker",
	"openai/gpt-5:high",
	"inherit",
	"not a model!",
	null,
	[],
	["openai/*"],
	{},
	{ enabled: true },
	{ enabled: "yes" },
	{ model: "openai/gpt-5", thinking: false },
	{ everyNTools: null },
	{ everyNTools: 3 },
	{ window: 2, repeats: 3 },
	{ overrides: { worker: { enabled: false, cadence: { everyNTools: 0 } } } },
	{ roleModels: { worker: { deny: ["openai/*"], note: "why" } } },
	{ roleModels: { worker: { deny: "openai/*" } } },
	{ unknownInside: 1 },
	{ maxBytes: 65_536 },
];

const layer = fc.oneof(
	fc.dictionary(fc.constantFrom(...SECTIONS, "unknownKey", "enabeld"), fc.constantFrom(...VALUES), { maxKeys: 6 }),
	fc.constantFrom<unknown>(null, 5, "text", [], [{ enabled: true }]),
);

const verdict = (result: { success: boolean; data?: unknown; error?: { issues: unknown[] } }) =>
	JSON.stringify({ success: result.success, data: result.data, issues: result.error?.issues });

describe("layerSchemaFor", () => {
	it("judges every layer exactly as the whole schema does, strict and stripping", () => {
		const strict = fullLayerSchema("strict");
		const strip = fullLayerSchema("strip");
		fc.assert(
			fc.property(layer, (value) => {
				expect(verdict(layerSchemaFor(value, "strict").safeParse(value))).toBe(verdict(strict.safeParse(value)));
				expect(verdict(layerSchemaFor(value, "strip").safeParse(value))).toBe(verdict(strip.safeParse(value)));
			}),
			{ numRuns: 2000 },
		);
	});

	it("builds only the sections a layer sets, and reuses the schema for the same keys", () => {
		const a = layerSchemaFor({ enabled: true, main: { model: "inherit" } }, "strict");
		expect(Object.keys(a.shape)).toEqual(["enabled", "main"]);
		expect(layerSchemaFor({ main: {}, enabled: false }, "strict")).toBe(a);
		expect(Object.keys(layerSchemaFor({ bogus: 1 }, "strict").shape)).toEqual([]);
	});
});
