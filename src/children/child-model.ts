// Which model a child runs on: the launch's `model`, else the agent's, where `inherit` (or
// nothing) means the parent's; the thinking level from the launch, the reference, the agent,
// then the parent. A model the registry does not have fails that launch with the models it
// does have. Pure over the registry it is given.
import type { Api, Model } from "@earendil-works/pi-ai";
import { formatModelRef, isThinking, parseModelRef, type Thinking } from "../models/index.ts";

export interface ModelLookup {
	find(provider: string, id: string): Model<Api> | undefined;
	getAvailable(): Model<Api>[];
}

export type ChildModel = { model: Model<Api>; thinking: Thinking; ref: string } | { error: string };

export function resolveChildModel(
	lookup: ModelLookup,
	choice: { launchModel?: string; launchThinking?: string; agentModel?: string; agentThinking?: string },
	parent: { model?: Model<Api>; thinking?: string },
): ChildModel {
	const wanted = [choice.launchModel, choice.agentModel].map((m) => m?.trim()).find((m) => m && m !== "inherit");
	let model: Model<Api> | undefined;
	let refThinking: Thinking | undefined;
	if (wanted && !wanted.includes("/")) {
		const bare = findBareId(lookup, wanted, parent.model);
		if ("error" in bare) return bare;
		model = bare.model;
		refThinking = bare.thinking;
	} else if (wanted) {
		const parsed = parseModelRef(wanted);
		if (!parsed.ok) return { error: parsed.error };
		model = lookup.find(parsed.ref.provider, parsed.ref.id);
		if (!model) return { error: `model ${parsed.ref.provider}/${parsed.ref.id} is not known to Pi. Available: ${available(lookup)}` };
		refThinking = parsed.ref.thinking;
	} else {
		model = parent.model;
		if (!model) return { error: `the agent inherits the session's model and there is none. Available: ${available(lookup)}` };
	}
	const thinking = [choice.launchThinking, refThinking, choice.agentThinking, parent.thinking].find((t) => t !== undefined && t !== "inherit");
	if (thinking !== undefined && !isThinking(thinking)) return { error: `"${thinking}" is not a thinking level` };
	const level: Thinking = thinking ?? "off";
	return { model, thinking: level, ref: formatModelRef(model, level) };
}

/**
 * A model id without its provider (`claude-haiku-4-5`, `gpt-5:high`): the parent's provider's
 * model of that id, else the one model of that id Pi has; several or none is an error.
 */
function findBareId(lookup: ModelLookup, text: string, parentModel: Model<Api> | undefined): { model: Model<Api>; thinking?: Thinking } | { error: string } {
	const colon = text.lastIndexOf(":");
	const suffix = colon > 0 ? text.slice(colon + 1) : "";
	const thinking = isThinking(suffix) ? (suffix as Thinking) : undefined;
	const id = thinking ? text.slice(0, colon) : text;
	const own = parentModel ? lookup.find(parentModel.provider, id) : undefined;
	if (own) return { model: own, ...(thinking ? { thinking } : {}) };
	let all: Model<Api>[] = [];
	try {
		all = lookup.getAvailable().filter((m) => m.id === id);
	} catch {
		// no list: the id cannot be placed
	}
	if (all.length === 1) return { model: all[0], ...(thinking ? { thinking } : {}) };
	if (all.length > 1) return { error: `model "${id}" is offered by ${all.map((m) => m.provider).join(", ")}; write provider/${id} to say which` };
	return { error: `model "${id}" (no provider given) is not known to Pi. Available: ${available(lookup)}` };
}

function available(lookup: ModelLookup): string {
	try {
		const refs = lookup.getAvailable().map((m) => `${m.provider}/${m.id}`);
		return refs.length ? refs.slice(0, 20).join(", ") + (refs.length > 20 ? ", …" : "") : "none (no provider has credentials)";
	} catch {
		return "(the model list could not be read)";
	}
}
