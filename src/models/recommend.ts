// Choosing a reviewer model: the strongest authenticated model from a different family than
// the one doing the work, so the review brings an independent view. Pure: it ranks what it is
// given.
import { formatModelRef, type Thinking } from "./model-ref.ts";

export interface ModelFacts {
	provider: string;
	id: string;
	name?: string;
	reasoning: boolean;
	cost?: { input: number; output: number };
	contextWindow?: number;
}

export type Recommendation =
	| { ok: true; ref: string; provider: string; id: string; thinking: Thinking; reason: string; kept: boolean }
	| { ok: false; reason: string };

const FAMILIES: Array<[RegExp, string]> = [
	[/claude|opus|sonnet|haiku/, "anthropic"],
	[/gpt|codex|chatgpt|^o\d/, "openai"],
	[/gemini|gemma/, "google"],
	[/grok/, "xai"],
	[/deepseek/, "deepseek"],
	[/qwen|qwq/, "qwen"],
	[/glm|zai/, "zhipu"],
	[/kimi|moonshot/, "moonshot"],
	[/mistral|codestral|devstral|magistral|ministral/, "mistral"],
	[/llama/, "meta"],
	[/minimax/, "minimax"],
];

/** The model family, read from the id (the same family is served by many providers). */
export function modelFamily(model: { provider: string; id: string }): string {
	const id = model.id.toLowerCase().split("/").pop() ?? model.id.toLowerCase();
	for (const [pattern, family] of FAMILIES) if (pattern.test(id)) return family;
	return model.provider.toLowerCase();
}

function tier(id: string): number {
	const s = id.toLowerCase();
	if (/haiku|nano|lite|tiny|\b[1-9]b\b/.test(s)) return 0;
	if (/sonnet|flash|mini|small/.test(s)) return 1;
	if (/opus|\bpro\b|-pro|ultra|-max|large/.test(s)) return 3;
	return 2;
}

function version(id: string): number {
	const m = /(\d+)(?:[.-](\d))?/.exec(id);
	return m ? Number(m[1]) + (m[2] ? Number(m[2]) / 10 : 0) : 0;
}

/** Orders strongest first: reasoning models, then the size tier, then price, then version. */
export function compareStrength(a: ModelFacts, b: ModelFacts): number {
	return (
		Number(b.reasoning) - Number(a.reasoning) ||
		tier(b.id) - tier(a.id) ||
		(b.cost?.output ?? 0) - (a.cost?.output ?? 0) ||
		version(b.id) - version(a.id) ||
		(b.contextWindow ?? 0) - (a.contextWindow ?? 0) ||
		`${a.provider}/${a.id}`.localeCompare(`${b.provider}/${b.id}`)
	);
}

export interface RecommendInput {
	/** Models available with credentials. */
	available: ModelFacts[];
	/** The model the session (or child) works with, if any. */
	sessionModel?: { provider: string; id: string };
	/** A configured reviewer model; it is kept as it is. */
	configured?: { provider: string; id: string; thinking: Thinking };
	/** Clamps a level to what the model supports. */
	clamp?: (model: ModelFacts, level: Thinking) => Thinking;
}

export function recommendModel(input: RecommendInput): Recommendation {
	if (input.configured) {
		const c = input.configured;
		return {
			ok: true,
			ref: formatModelRef(c, c.thinking),
			provider: c.provider,
			id: c.id,
			thinking: c.thinking,
			kept: true,
			reason: "the configured reviewer model stays, with its thinking level (name a model to replace it)",
		};
	}
	if (input.available.length === 0) {
		return {
			ok: false,
			reason: "no model is available with credentials; log in to a provider (/login) or add one in models.json",
		};
	}
	const ownFamily = input.sessionModel ? modelFamily(input.sessionModel) : undefined;
	const candidates = input.available.filter((m) => modelFamily(m) !== ownFamily).sort(compareStrength);
	const best = candidates[0];
	if (!best) {
		const names = input.available.map((m) => `${m.provider}/${m.id}`).join(", ");
		return {
			ok: false,
			reason:
				`every available model is of the session model's family (${ownFamily}): ${names}. ` +
				`Add credentials for a provider of another family, or choose a model explicitly`,
		};
	}
	const thinking = best.reasoning ? (input.clamp?.(best, "high") ?? "high") : "off";
	const why = ownFamily
		? `the strongest authenticated model outside the session's family (${ownFamily})`
		: "the strongest authenticated model";
	return {
		ok: true,
		ref: formatModelRef(best, thinking),
		provider: best.provider,
		id: best.id,
		thinking,
		kept: false,
		reason: why,
	};
}
