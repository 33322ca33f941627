// The launch rules of one session as status sees them: how many roles have a rule, the action,
// and the last decision (which role, on which model, what decided it, whether it started).
import type { StatusSection } from "../util/index.ts";
import { type LaunchRules, type LaunchVerdict, type RuleDecision, ruleCount } from "./launch-rules.ts";

export interface RememberedDecision extends RuleDecision {
	at: number;
	run?: string;
}

export class LaunchRuleWatch {
	private last?: RememberedDecision;

	/** After a launch was judged: the decision that matters most (a broken rule, else the last one). */
	remember(verdict: LaunchVerdict, run?: string, at = Date.now()): void {
		const d = verdict.broken[0] ?? verdict.decisions.at(-1);
		if (d) this.last = { ...d, at, ...(run ? { run } : {}) };
	}

	lastDecision(): RememberedDecision | undefined {
		return this.last;
	}

	/** `Launch rules` in the full status. */
	section(rules: LaunchRules): StatusSection {
		const roles = Object.keys(rules.roleModels).filter(
			(r) => rules.roleModels[r].allow !== undefined || rules.roleModels[r].deny !== undefined,
		);
		return {
			title: "Launch rules",
			lines: [
				`${count(rules)} (action ${rules.action})${roles.length ? `: ${roles.join(", ")}` : ""}`,
				`last decision: ${this.lastText()}`,
			],
		};
	}

	/** The short status's line: the count, the action, and the last decision without its rule. */
	brief(rules: LaunchRules): string {
		const n = ruleCount(rules);
		return (
			`Launch rules: ${n ? `${count(rules)}, ${rules.action}` : "none"}` +
			`${this.last ? ` · last: ${this.lastText(false)}` : ""}`
		);
	}

	private lastText(withRule = true): string {
		const d = this.last;
		if (!d) return "none this session";
		const when = new Date(d.at).toISOString().slice(11, 19);
		return `${when} ${d.decision} ${d.label} on ${d.model}${withRule ? ` (${d.rule})` : ""}`;
	}
}

function count(rules: LaunchRules): string {
	const n = ruleCount(rules);
	return `${n} role${n === 1 ? "" : "s"} with rules`;
}
