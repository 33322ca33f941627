// Which model reviews, and whether it can: resolving the configured (or inherited) model
// against Pi's model registry and checking its credentials, with messages that say exactly
// what is missing.
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import type { ModelRegistry } from "@earendil-works/pi-coding-agent";

import { formatModelRef, parseModelRef, type Thinking, type ThinkingSetting } from "./model-ref.ts";
import { type ModelFacts, recommendModel, type Recommendation } from "./recommend.ts";

export type Registry = Pick<
	ModelRegistry,
	"find" | "getAll" | "getAvailable" | "getApiKeyAndHeaders" | "hasConfiguredAuth" | "streamSimple"
>;

export interface SessionModelInfo {
	model?: { provider: string; id: string };
	thinking?: Thinking;
}

export interface ReviewerChoice {
	/** "configured": a model set in settings; "inherit": the session's own model. */
	kind: "configured" | "inherit";
	provider?: string;
	id?: string;
	thinking: Thinking;
	/** Set when no model can be named at all (inherit without a session model). */
	problem?: string;
}

export function chooseReviewer(
	pair: { model: string; thinking: ThinkingSetting },
	session: SessionModelInfo,
): ReviewerChoice {
	const inheritedThinking = session.thinking ?? "off";
	if (pair.model === "inherit") {
		const thinking = pair.thinking === "inherit" ? inheritedThinking : pair.thinking;
		if (!session.model)
			return {
				kind: "inherit",
				thinking,
				problem: "the watchdog inherits the session's model, but the session has no model selected",
			};
		return { kind: "inherit", provider: session.model.provider, id: session.model.id, thinking };
	}
	const parsed = parseModelRef(pair.model);
	if (!parsed.ok) return { kind: "configured", thinking: "off", problem: parsed.error };
	const thinking = pair.thinking === "inherit" ? inheritedThinking : pair.thinking;
	return { kind: "configured", provider: parsed.ref.provider, id: parsed.ref.id, thinking };
}

export function describeChoice(choice: ReviewerChoice): string {
	if (!choice.provider || !choice.id) return `none (${choice.problem})`;
	const ref = formatModelRef({ provider: choice.provider, id: choice.id });
	return `${ref}, thinking ${choice.thinking}${choice.kind === "inherit" ? " (inherited from the session)" : ""}`;
}

export interface CheckResult {
	ok: boolean;
	/** One line per finding, in the order a user would fix them. */
	lines: string[];
}

/** Does the chosen model exist and have credentials? Never throws. */
export async function checkReviewer(registry: Registry, choice: ReviewerChoice): Promise<CheckResult> {
	if (!choice.provider || !choice.id) return { ok: false, lines: [`No reviewer model: ${choice.problem}.`] };
	const ref = `${choice.provider}/${choice.id}`;
	const model = registry.find(choice.provider, choice.id);
	if (!model) {
		const all = safe(() => registry.getAll(), []);
		const ofProvider = all.filter((m) => m.provider === choice.provider).map((m) => m.id);
		if (ofProvider.length === 0) {
			const providers = [...new Set(all.map((m) => m.provider))].sort();
			return {
				ok: false,
				lines: [
					`Unknown model ${ref}: Pi knows no provider "${choice.provider}".`,
					providers.length
						? `Known providers: ${providers.slice(0, 20).join(", ")}${providers.length > 20 ? ", …" : ""}.`
						: "Pi knows no models at all.",
				],
			};
		}
		return {
			ok: false,
			lines: [
				`Unknown model ${ref}: provider "${choice.provider}" has no model "${choice.id}".`,
				`Its models: ${ofProvider.slice(0, 15).join(", ")}${ofProvider.length > 15 ? ", …" : ""}.`,
			],
		};
	}
	let auth: Awaited<ReturnType<Registry["getApiKeyAndHeaders"]>>;
	try {
		auth = await registry.getApiKeyAndHeaders(model);
	} catch (error) {
		auth = { ok: false, error: (error as Error).message };
	}
	if (!auth.ok) {
		return {
			ok: false,
			lines: [
				`Model ${ref} is known, but has no usable credentials: ${auth.error}`,
				`Log in with /login ${choice.provider}, or set its API key.`,
			],
		};
	}
	// Pi resolves "no key" without an error for most providers; the availability snapshot knows.
	const available =
		safe(() => registry.hasConfiguredAuth(model), false) ||
		safe(() => registry.getAvailable(), []).some((m) => m.provider === model.provider && m.id === model.id);
	if (!auth.apiKey && !auth.headers && !available) {
		return {
			ok: false,
			lines: [
				`Model ${ref} is known, but provider "${choice.provider}" has no credentials configured.`,
				`Log in with /login ${choice.provider}, or set its API key (environment or auth.json).`,
			],
		};
	}
	const lines = [`Model ${ref} resolves and has credentials.`];
	const clamped = clampThinkingLevel(model, choice.thinking);
	if (clamped !== choice.thinking)
		lines.push(`Thinking ${choice.thinking} is not supported by this model; it runs at ${clamped}.`);
	else lines.push(`Thinking: ${choice.thinking}.`);
	return { ok: true, lines };
}

export function recommendFor(
	registry: Registry,
	session: SessionModelInfo,
	configured?: ReviewerChoice,
): Recommendation {
	const available = safe(() => registry.getAvailable(), []).map(
		(m): ModelFacts => ({
			provider: m.provider,
			id: m.id,
			name: m.name,
			reasoning: m.reasoning,
			cost: m.cost,
			contextWindow: m.contextWindow,
		}),
	);
	const keep =
		configured?.kind === "configured" && configured.provider && configured.id
			? { provider: configured.provider, id: configured.id, thinking: configured.thinking }
			: undefined;
	return recommendModel({
		available,
		sessionModel: session.model,
		configured: keep,
		clamp: (facts, level) => {
			const model = registry.find(facts.provider, facts.id);
			return model ? clampThinkingLevel(model, level) : level;
		},
	});
}

function safe<T>(fn: () => T, fallback: T): T {
	try {
		return fn();
	} catch {
		return fallback;
	}
}
