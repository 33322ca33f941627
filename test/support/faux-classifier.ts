// A classifier provider on the real model runtime whose judgement is scripted (Pi 1.6's
// `classify`): each call takes the next reply, a function of the context it was asked.
import { type ClassifierContext, type ClassifierResult, createProvider, type Provider } from "@earendil-works/pi-ai";

export type ClassifierReply = (
	context: ClassifierContext,
) => Partial<ClassifierResult> | Promise<Partial<ClassifierResult>>;

export interface FauxClassifier {
	provider: Provider;
	ref: string;
	calls: ClassifierContext[];
	setReplies(replies: ClassifierReply[]): void;
}

/** `approve` with p(approve) = `p` (deny otherwise). */
export const decide =
	(choice: "approve" | "deny", p: number): ClassifierReply =>
	() => ({
		stopReason: "stop",
		answers: {
			decision: { type: "choice", choice, probabilities: { approve: p, deny: 1 - p }, confidence: Math.max(p, 1 - p) },
		},
	});

export function fauxClassifier(id = "faux-classifier", modelId = "judge"): FauxClassifier {
	const calls: ClassifierContext[] = [];
	let replies: ClassifierReply[] = [];
	const api = "faux-classify";
	const provider = createProvider({
		id,
		auth: { apiKey: { name: "Faux classifier", resolve: async () => ({ auth: {} }) } },
		models: [
			{
				type: "classifier",
				id: modelId,
				name: modelId,
				api,
				provider: id,
				baseUrl: "http://127.0.0.1:1",
				input: ["text"],
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
				contextWindow: 32_000,
			},
		],
		classifiers: {
			[api]: {
				async classify(model, context) {
					calls.push(context);
					const next = replies.shift();
					const base = { api, provider: id, model: model.id, answers: {}, timestamp: Date.now() };
					if (!next)
						return { ...base, stopReason: "error", errorMessage: "no scripted reply left" } as ClassifierResult;
					return { ...base, stopReason: "stop", ...(await next(context)) } as ClassifierResult;
				},
			},
		},
	} as Parameters<typeof createProvider>[0]);
	return { provider, ref: `${id}/${modelId}`, calls, setReplies: (r) => (replies = [...r]) };
}
