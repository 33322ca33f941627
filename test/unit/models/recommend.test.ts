import { describe, expect, it } from "vitest";
import { parseModelRef } from "../../../src/models/model-ref.ts";
import { compareStrength, type ModelFacts, modelFamily, recommendModel } from "../../../src/models/recommend.ts";

const m = (provider: string, id: string, reasoning = true, output = 10): ModelFacts => ({
	provider,
	id,
	reasoning,
	cost: { input: 1, output },
});

const CATALOG = [
	m("anthropic", "claude-opus-4-8", true, 75),
	m("anthropic", "claude-sonnet-4-6", true, 15),
	m("anthropic", "claude-haiku-4-5", true, 5),
	m("openai", "gpt-5.5", true, 40),
	m("openai", "gpt-5.5-mini", true, 4),
	m("openrouter", "anthropic/claude-opus-4-8", true, 75),
	m("google", "gemini-3-pro", true, 12),
];

describe("model references", () => {
	it("parses provider, id and an optional thinking suffix", () => {
		expect(parseModelRef("anthropic/claude-opus-4-8:high")).toEqual({
			ok: true,
			ref: { provider: "anthropic", id: "claude-opus-4-8", thinking: "high" },
		});
		expect(parseModelRef("openrouter/meta/llama-4:free")).toEqual({
			ok: true,
			ref: { provider: "openrouter", id: "meta/llama-4:free" },
		});
		expect(parseModelRef("openrouter/meta/llama-4:free:low")).toMatchObject({
			ok: true,
			ref: { id: "meta/llama-4:free", thinking: "low" },
		});
		for (const bad of ["opus", "/x", "x/", "a b/c"]) expect(parseModelRef(bad).ok).toBe(false);
	});
});

describe("recommendation", () => {
	it("reads the family from the id, whoever serves it", () => {
		expect(modelFamily({ provider: "openrouter", id: "anthropic/claude-opus-4-8" })).toBe("anthropic");
		expect(modelFamily({ provider: "openai-codex", id: "gpt-5.5" })).toBe("openai");
		expect(modelFamily({ provider: "faux", id: "main-model" })).toBe("faux");
	});

	it("picks the strongest model of another family at thinking high", () => {
		const forClaude = recommendModel({
			available: CATALOG,
			sessionModel: { provider: "anthropic", id: "claude-sonnet-4-6" },
		});
		expect(forClaude).toMatchObject({ ok: true, ref: "openai/gpt-5.5:high", thinking: "high", kept: false });
		const forGpt = recommendModel({ available: CATALOG, sessionModel: { provider: "openai", id: "gpt-5.5" } });
		expect(forGpt).toMatchObject({
			ok: true,
			provider: "anthropic",
			id: "claude-opus-4-8",
			ref: "anthropic/claude-opus-4-8:high",
		});
	});

	it("runs a model without reasoning at thinking off and respects the clamp", () => {
		const plain = recommendModel({
			available: [m("mistral", "mistral-large", false)],
			sessionModel: { provider: "openai", id: "gpt-5.5" },
		});
		expect(plain).toMatchObject({ ok: true, ref: "mistral/mistral-large", thinking: "off" });
		const clamped = recommendModel({
			available: [m("google", "gemini-3-pro")],
			sessionModel: { provider: "openai", id: "gpt-5.5" },
			clamp: () => "medium",
		});
		expect(clamped).toMatchObject({ ok: true, thinking: "medium", ref: "google/gemini-3-pro:medium" });
	});

	it("keeps a configured model and its level", () => {
		const r = recommendModel({
			available: CATALOG,
			sessionModel: { provider: "openai", id: "gpt-5.5" },
			configured: { provider: "openai", id: "gpt-5.5-mini", thinking: "low" },
		});
		expect(r).toMatchObject({ ok: true, kept: true, ref: "openai/gpt-5.5-mini:low" });
	});

	it("says why when nothing qualifies", () => {
		expect(recommendModel({ available: [] })).toMatchObject({
			ok: false,
			reason: expect.stringMatching(/no model is available with credentials/),
		});
		const same = recommendModel({
			available: CATALOG.filter((x) => modelFamily(x) === "anthropic"),
			sessionModel: { provider: "anthropic", id: "claude-opus-4-8" },
		});
		expect(same).toMatchObject({ ok: false, reason: expect.stringMatching(/session model's family \(anthropic\)/) });
	});

	it("orders reasoning before size before price", () => {
		const sorted = [
			m("x", "big-plain", false, 100),
			m("y", "small-mini", true, 1),
			m("z", "flagship-pro", true, 2),
		].sort(compareStrength);
		expect(sorted.map((s) => s.id)).toEqual(["flagship-pro", "small-mini", "big-plain"]);
	});
});
