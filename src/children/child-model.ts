// Which model a child runs on: the launch's `model`, else the agent's, where `inherit` (or
// nothing) means the parent's; the thinking level from the launch, the reference, the agent,
// then the parent. A model the registry does not have fails that launch with the models it
// does have. Pure over the registry it is given.
import type { Api, Model } from "@earendil-works/pi-ai";
import {
	availableModels as available,
	findBareId,
	formatModelRef,
	isThinking,
	type ModelLookup,
	parseModelRef,
	type Thinking,
} from "../models/index.ts";

export type { ModelLookup };

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
		if (!model)
			return {
				error: `model ${parsed.ref.provider}/${parsed.ref.id} is not known to Pi. Available: ${available(lookup)}`,
			};
		refThinking = parsed.ref.thinking;
	} else {
		model = parent.model;
		if (!model)
			return { error: `the agent inherits the session's model and there is none. Available: ${available(lookup)}` };
	}
	const thinking = [choice.launchThinking, refThinking, choice.agentThinking, parent.thinking].find(
		(t) => t !== undefined && t !== "inherit",
	);
	if (thinking !== undefined && !isThinking(thinking)) return { error: `"${thinking}" is not a thinking level` };
	const level: Thinking = thinking ?? "off";
	return { model, thinking: level, ref: formatModelRef(model, level) };
}
