// `watchdog_warn`: the reviewer's way to report a finding. One TypeBox schema, shown to the
// model and read by the shared checker (model-call/); over-long texts are cut, not refused. Lives with the
// review (not in findings/) so the detectors and scan need no TypeBox.
import { type Static, Type } from "typebox";
import { CATEGORIES, IMPORTANCES, SEVERITIES } from "../findings/index.ts";
import { checkArgs, enumOf, trimStrings } from "../model-call/index.ts";
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
 * Checks a model's `watchdog_warn` arguments against WARN_PARAMS; texts are trimmed first, and
 * over-long ones cut, not refused; the summary becomes one line. Unknown keys are dropped, not
 * refused (a sound finding with one extra field is still a finding); `ignoredKeys` names them.
 */
export function parseWarnArgs(
	args: unknown,
): { ok: true; value: WarnArgs; ignoredKeys: string[] } | { ok: false; error: string } {
	const checked = checkArgs(WARN_PARAMS, trimStrings(args));
	if (!checked.ok) return checked;
	const v = checked.value;
	return {
		ok: true,
		value: {
			...v,
			summary: clip(oneLine(v.summary), LIMITS.summary),
			evidence: clip(v.evidence, LIMITS.evidence),
			recommendedAction: clip(v.recommendedAction, LIMITS.recommendedAction),
		},
		ignoredKeys: checked.unknownKeys,
	};
}
