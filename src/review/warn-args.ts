// `watchdog_warn`: the reviewer's way to report a finding. One TypeBox schema, shown to the
// model and read by the checker below; over-long texts are cut, not refused. Lives with the
// review (not in findings/) so the detectors and scan need no TypeBox.
import { type Static, Type } from "typebox";
import { CATEGORIES, IMPORTANCES, SEVERITIES } from "../findings/index.ts";
import { enumOf } from "../model-call/index.ts";
import { clip, oneLine } from "../util/index.ts";

const LIMITS = { summary: 300, evidence: 2000, recommendedAction: 1000 };

/** `watchdog_warn`'s one schema: what the reviewer model is shown, and what its arguments are checked against. */
export const WARN_PARAMS = Type.Object({
	summary: Type.String({ minLength: 1, description: "One line that stands on its own." }),
	evidence: Type.String({ minLength: 1, description: "What you saw: paths, line numbers, exact tool output." }),
	recommendedAction: Type.String({ minLength: 1, description: "The concrete next step that resolves it." }),
	importance: enumOf(IMPORTANCES, "high: the agent must act before the user relies on the work."),
	severity: enumOf(SEVERITIES, "blocker: not acceptable as it stands."),
	category: Type.Optional(enumOf(CATEGORIES, "What kind of problem it is.")),
});

export type WarnArgs = Static<typeof WARN_PARAMS>;

/**
 * Checks a model's `watchdog_warn` arguments against WARN_PARAMS; over-long texts are cut, not
 * refused, and the summary becomes one line. Unknown keys are dropped, not refused (a sound
 * finding with one extra field is still a finding); `ignoredKeys` names them.
 */
export function parseWarnArgs(args: unknown): { ok: true; value: WarnArgs; ignoredKeys: string[] } | { ok: false; error: string } {
	if (typeof args !== "object" || args === null || Array.isArray(args)) return { ok: false, error: "the arguments must be a JSON object" };
	const record = args as Record<string, unknown>;
	const required = new Set<string>((WARN_PARAMS.required as string[] | undefined) ?? []);
	const problems: string[] = [];
	const value: Record<string, string> = {};
	for (const [name, raw] of Object.entries(WARN_PARAMS.properties)) {
		const spec = raw as { enum?: string[] };
		const given = record[name];
		if (given === undefined || given === null) {
			if (required.has(name)) problems.push(`${name} is required`);
			continue;
		}
		if (typeof given !== "string") problems.push(`${name} must be a string`);
		else if (spec.enum && !spec.enum.includes(given.trim())) problems.push(`${name} must be ${oneOf(spec.enum)}`);
		else if (!given.trim()) problems.push(`${name} is empty`);
		else value[name] = given.trim();
	}
	if (problems.length) return { ok: false, error: problems.join("; ") };
	const v = value as WarnArgs;
	return {
		ok: true,
		value: { ...v, summary: clip(oneLine(v.summary), LIMITS.summary), evidence: clip(v.evidence, LIMITS.evidence), recommendedAction: clip(v.recommendedAction, LIMITS.recommendedAction) },
		ignoredKeys: Object.keys(record).filter((k) => !(k in WARN_PARAMS.properties)),
	};
}

function oneOf(values: readonly string[]): string {
	return values.length <= 3 ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : `one of ${values.join(", ")}`;
}
