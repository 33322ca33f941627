// One model call as every caller makes it (the reviewer, the verifier, the permission arbiter,
// the nudge writer): the model checked usable (known, with credentials) and then asked, each
// wait bounded by the caller's signal (its deadline and cancel), so a provider that never
// answers cannot hold the session.
import { type Api, type AssistantMessage, clampThinkingLevel, type Context, type Model } from "@earendil-works/pi-ai";
import { checkReviewer, type Registry, type ReviewerChoice } from "../models/index.ts";
import { whenAborted } from "../util/index.ts";

export interface UsableModel {
	model: Model<Api>;
	/** `provider/id`. */
	ref: string;
	/** The thinking level the model supports nearest the chosen one. */
	level: ReturnType<typeof clampThinkingLevel>;
}

/** The chosen model ready to call; `{ problem }` says why it is not; undefined when `signal` ended the wait. */
export async function usableModel(
	registry: Registry,
	choice: ReviewerChoice,
	signal: AbortSignal,
): Promise<UsableModel | { problem: string } | undefined> {
	const check = await Promise.race([checkReviewer(registry, choice), whenAborted(signal)]);
	if (!check) return undefined;
	const model = choice.provider && choice.id ? registry.find(choice.provider, choice.id) : undefined;
	if (!check.ok || !model) return { problem: check.lines.join(" ") };
	return { model, ref: `${model.provider}/${model.id}`, level: clampThinkingLevel(model, choice.thinking) };
}

/** One reply from the model; undefined when `signal` ended the wait first. Throws what the provider throws. */
export async function askModel(
	registry: Registry,
	usable: UsableModel,
	context: Context,
	options: { signal: AbortSignal; maxTokens: number },
): Promise<AssistantMessage | undefined> {
	const reasoning = usable.level !== "off" ? { reasoning: usable.level } : {};
	const stream = registry.streamSimple(usable.model, context, {
		...reasoning,
		signal: options.signal,
		maxTokens: options.maxTokens,
	});
	const reply = await Promise.race([stream.result(), whenAborted(options.signal)]);
	return reply && !options.signal.aborted ? reply : undefined;
}
