// Placing a model id given without its provider (pi-subagents' form): the preferred provider's
// model of that id when it has one, else the one model of that id Pi has credentials for.
// Shared by agent files (at launch) and settings (when the session reads them).
import type { Api, Model } from "@earendil-works/pi-ai";
import { splitBareId, type Thinking } from "./model-ref.ts";

export interface ModelLookup {
	find(provider: string, id: string): Model<Api> | undefined;
	getAvailable(): Model<Api>[];
}

/** `preferred`: whose model of that id wins (an agent's parent); without it the id must be unique. */
export type BarePlace = { model: Model<Api>; thinking?: Thinking } | { error: string };

export function findBareId(lookup: ModelLookup, text: string, preferred?: { provider: string }): BarePlace {
	const { id, thinking } = splitBareId(text);
	const own = preferred ? lookup.find(preferred.provider, id) : undefined;
	if (own) return { model: own, ...(thinking ? { thinking } : {}) };
	let all: Model<Api>[] = [];
	try {
		all = lookup.getAvailable().filter((m) => m.id === id);
	} catch {
		// no list: the id cannot be placed
	}
	if (all.length === 1) return { model: all[0], ...(thinking ? { thinking } : {}) };
	const providers = all.map((m) => m.provider).join(", ");
	if (all.length > 1) return { error: `model "${id}" is offered by ${providers}; write provider/${id} to say which` };
	return { error: `model "${id}" (no provider given) is not known to Pi. Available: ${availableModels(lookup)}` };
}

export function availableModels(lookup: ModelLookup): string {
	try {
		const refs = lookup.getAvailable().map((m) => `${m.provider}/${m.id}`);
		return refs.length
			? refs.slice(0, 20).join(", ") + (refs.length > 20 ? ", …" : "")
			: "none (no provider has credentials)";
	} catch {
		return "(the model list could not be read)";
	}
}
