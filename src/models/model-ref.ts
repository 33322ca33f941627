// Parsing of model references as users write them: `provider/id[:thinking]`.
// Model ids may themselves contain `/` and `:` (e.g. OpenRouter ids), so only a trailing
// `:<known thinking level>` is read as the thinking suffix.

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type Thinking = (typeof THINKING_LEVELS)[number];
/** A thinking level as a setting: a level, or the session's own. */
export type ThinkingSetting = Thinking | "inherit";

export function isThinking(value: unknown): value is Thinking {
	return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

export interface ModelRef {
	provider: string;
	id: string;
	thinking?: Thinking;
}

export type ParsedModelRef = { ok: true; ref: ModelRef } | { ok: false; error: string };

export function parseModelRef(text: string): ParsedModelRef {
	const trimmed = text.trim();
	const slash = trimmed.indexOf("/");
	if (slash <= 0 || slash === trimmed.length - 1) {
		return {
			ok: false,
			error:
				`"${text}" is not a model reference; write provider/id or provider/id:thinking ` +
				`(e.g. anthropic/claude-opus-4-8:high)`,
		};
	}
	const provider = trimmed.slice(0, slash);
	let id = trimmed.slice(slash + 1);
	let thinking: Thinking | undefined;
	const colon = id.lastIndexOf(":");
	if (colon > 0 && isThinking(id.slice(colon + 1))) {
		thinking = id.slice(colon + 1) as Thinking;
		id = id.slice(0, colon);
	}
	if (/\s/.test(provider) || /\s/.test(id) || id.length === 0) {
		return { ok: false, error: `"${text}" is not a model reference; provider and id may not contain spaces` };
	}
	return { ok: true, ref: { provider, id, ...(thinking ? { thinking } : {}) } };
}

export function formatModelRef(ref: { provider: string; id: string }, thinking?: Thinking): string {
	return `${ref.provider}/${ref.id}${thinking && thinking !== "off" ? `:${thinking}` : ""}`;
}

/**
 * A model id without its provider, as pi-subagents accepts it (`claude-opus-4-8`, `gpt-5:high`):
 * no `/`, no spaces, not a keyword. Which provider's it is, is decided against Pi's models.
 */
export function isBareModelId(text: string): boolean {
	const t = text.trim();
	return (
		t.length > 0 && !t.includes("/") && !/\s/.test(t) && t !== "inherit" && t !== "recommended" && !t.startsWith(":")
	);
}

/** A bare id's thinking suffix split off: `gpt-5:high` is id `gpt-5`, thinking high. */
export function splitBareId(text: string): { id: string; thinking?: Thinking } {
	const t = text.trim();
	const colon = t.lastIndexOf(":");
	const suffix = colon > 0 ? t.slice(colon + 1) : "";
	return isThinking(suffix) ? { id: t.slice(0, colon), thinking: suffix } : { id: t };
}
