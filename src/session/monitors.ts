// Each capability of the session's watchdog as a `Monitor` (see monitor.ts): a thin adapter
// from the hooks to the capability's own class, which lives in its folder. The session's list
// is in status order; where hook order matters it is noted on the monitor that relies on it.
import { isAbsolute, join } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Cadence } from "../cadence/index.ts";
import type { EvidenceWatch } from "../evidence/index.ts";
import type { ChildFindings, FindingsSink } from "../findings/index.ts";
import type { ProjectTrust } from "../host/index.ts";
import { type LoopWatch, LOOP_RESOLVED_ENTRY } from "../loops/index.ts";
import { lspBrief, lspSection } from "../lsp/index.ts";
import type { ActivityTail, ModelReview } from "../review/index.ts";
import type { Rotation } from "../rotate/index.ts";
import type { LaunchRuleWatch } from "../rules/index.ts";
import { TRUST_COMMAND } from "../settings/index.ts";
import type { StatusSection } from "../status/index.ts";
import type { SubtreeVerifier } from "../verify/index.ts";
import type { Monitor } from "./monitor.ts";
import { arbiterModelText } from "./permission-step.ts";
import type { RunMonitors } from "./repo-monitors.ts";
import type { SettingsChangeWatch } from "./settings-change-step.ts";
import { unsupportedSettings } from "./settings-notice.ts";

export function reviewMonitor(review: ModelReview): Monitor {
	return {
		name: "review",
		restore: (entries) => review.sessionStart(entries),
		userPrompt: (text) => review.userPrompt(text),
		modelChange: () => review.cancel("a model change"),
		status: (v) => ({ sections: review.sections(v.enabled) }),
		shutdown: () => review.cancel(),
	};
}

export function findingsMonitor(sink: FindingsSink): Monitor {
	return {
		name: "findings",
		restore: (entries) => sink.restore(entries as never),
		userPrompt: () => sink.userPrompt(),
		status: () => ({ sections: [sink.section()] }),
	};
}

/** The Children section: the configuration, then what the children found. */
export function childrenMonitor(children: ChildFindings): Monitor {
	return {
		name: "children",
		status: (v) => {
			const config = v.baseline.find((b) => b.title === "Children")?.lines ?? [];
			const lines = [...config.filter((l) => l !== "no child findings this session"), ...children.lines()];
			return { sections: [{ title: "Children", lines }] };
		},
	};
}

/**
 * The change gate, and the cadence's count of tool results. The gate sees a tool's change
 * before the cadence may start a review of the pending paths, and that review starts before
 * the loop detector sees the same result (its signals are the ones from before).
 */
export function changesMonitor(repo: () => RunMonitors, cadence: Cadence<ExtensionContext>): Monitor {
	return {
		name: "changes",
		toolCall: async (_ctx, call, resolved) => {
			if (resolved.enabled) await repo().gate?.beforeTool(call.toolName, call.input);
			return undefined;
		},
		toolResult: (ctx, event, resolved) => {
			repo().gate?.afterTool(event.toolName, event.input, event.isError);
			cadence.onToolResult(ctx, resolved.settings.cadence.everyNTools);
			return undefined;
		},
	};
}

export function lspMonitor(repo: () => RunMonitors): Monitor {
	return {
		name: "lsp",
		toolResult: (ctx, event, resolved) => {
			const path = (event.input as { path?: unknown } | undefined)?.path;
			const edit = event.toolName === "edit" || event.toolName === "write";
			if (!event.isError && resolved.settings.lsp.enabled && edit && typeof path === "string") {
				repo().lsp?.prefetch([isAbsolute(path) ? path : join(ctx.cwd, path)], resolved.settings.lsp);
			}
			return undefined;
		},
		status: (v) => {
			const { enabled, idleMs } = v.settings.lsp;
			const section = lspSection(enabled, repo().lsp?.status());
			// How long a warm server waits for the next check before it stops (and the next check is cold).
			const idle = `stops after ${duration(idleMs)} without a check (lsp.idleMs)`;
			const lines = enabled ? [...section.lines, idle] : section.lines;
			// In the short line the idle time comes first: a long last result is what the width may cut.
			const brief = lspBrief(enabled, repo().lsp?.status()).replace(
				/^(LSP: [a-z ]+)/,
				enabled ? `$1 (stops after ${duration(idleMs)} idle)` : "$1",
			);
			return { sections: [{ ...section, lines }], brief: [brief] };
		},
		shutdown: () => repo().lsp?.shutdown(),
	};
}

export function loopsMonitor(loops: LoopWatch): Monitor {
	return {
		name: "loops",
		restore: () => loops.sessionStart(),
		userPrompt: (text) => loops.userPrompt(text),
		toolResult: (_ctx, event, resolved) => {
			const loop = loops.toolResult({ enabled: resolved.enabled, loops: resolved.settings.loops }, event);
			const over = loop.resolved;
			const data = { at: Date.now(), call: over?.call };
			return {
				findings: loop.findings,
				...(loop.signal ? { details: { signal: loop.signal } } : {}),
				...(over ? { resolved: { customType: LOOP_RESOLVED_ENTRY, text: over.text, data } } : {}),
				...(loop.stop ? { stop: loop.stop } : {}),
			};
		},
		assistantText: (text, resolved) => {
			loops.assistantText({ enabled: resolved.enabled, loops: resolved.settings.loops }, text);
		},
		status: (v) => ({
			sections: [loops.section(v.enabled, v.settings.loops.enabled)],
			brief: [loops.brief(v.enabled, v.settings.loops.enabled)],
		}),
	};
}

export function evidenceMonitor(evidence: EvidenceWatch): Monitor {
	return {
		name: "evidence",
		userPrompt: () => evidence.userPrompt(),
		input: () => evidence.input(),
		status: (v) => ({
			sections: [evidence.section(v.settings.idle.policy, v.settings.idle, v.role)],
			brief: [evidence.brief(v.settings.idle.policy)],
		}),
		shutdown: () => evidence.cancelStall(),
	};
}

export function activityMonitor(activity: ActivityTail): Monitor {
	return {
		name: "clarification",
		restore: () => {
			activity.clear();
			activity.userPrompt();
		},
		userPrompt: () => activity.userPrompt(),
		input: () => activity.input(),
		status: (v) => ({ sections: [activity.section(v.clarifying)] }),
		shutdown: () => activity.clear(),
	};
}

export function rotationMonitor(rotation: Rotation): Monitor {
	return {
		name: "rotation",
		restore: (entries) => rotation.restore(entries),
		userPrompt: () => rotation.userPrompt(Date.now()),
		status: (v) => {
			const brief = v.role === "main" ? rotation.brief(v.settings.rotate) : undefined;
			const section = rotation.section(v.settings.rotate, v.settings.idle.policy);
			return { sections: [section], brief: brief === undefined ? [] : [brief] };
		},
	};
}

export function subtreeMonitor(subtree: SubtreeVerifier): Monitor {
	return {
		name: "verification",
		restore: (entries) => subtree.restore(entries),
		userPrompt: () => subtree.userPrompt(),
		status: () => {
			const brief = subtree.brief();
			return { sections: [subtree.section()], brief: brief ? [brief] : [] };
		},
		shutdown: () => subtree.shutdown(),
	};
}

export function settingsChangeMonitor(watch: SettingsChangeWatch): Monitor {
	return { name: "settings changes", status: () => ({ sections: watch.section(), brief: watch.brief() }) };
}

/** The cadence review: its tool-result count is the changes monitor's; a prompt, a model change or the end stops it. */
export function cadenceMonitor(cadence: Cadence<ExtensionContext>): Monitor {
	const every = (n: number | false) => (n ? `every ${n} tool results` : "off");
	return {
		name: "cadence",
		restore: () => cadence.cancel(),
		userPrompt: () => cadence.cancel(),
		modelChange: () => cadence.cancel(),
		status: (v) => {
			const children = v.settings.children.enabled ? "watchdogs on" : "watchdogs off";
			const ask = arbiterModelText(v.settings);
			return { brief: [`Cadence: ${every(v.settings.cadence.everyNTools)} · Children: ${children} · ${ask}`] };
		},
		shutdown: () => cadence.cancel(),
	};
}

export function launchRulesMonitor(rules: LaunchRuleWatch): Monitor {
	return {
		name: "launch rules",
		status: (v) => ({ sections: [rules.section(v.settings.rules)], brief: [rules.brief(v.settings.rules)] }),
	};
}

/** What was held back since the trust decision, and pi-subagents' settings that do nothing here. */
export function trustMonitor(trust: () => ProjectTrust): Monitor {
	return {
		name: "trust",
		status: (v) => {
			const held = trust().held.list();
			const paths = held.map((h) => h.path).join(", ");
			const heldLine = `Held back: ${paths} (changed or added after the trust decision; ${TRUST_COMMAND} allows them)`;
			const unsupported = unsupportedSettings(v.resolved, v.role);
			const title = "Not supported here (pi-subagents settings)";
			const sections: StatusSection[] = unsupported.length ? [{ title, lines: unsupported }] : [];
			return { sections, brief: held.length ? [heldLine] : [] };
		},
	};
}

/** 300000 → "5 min", 90000 → "90 s". */
function duration(ms: number): string {
	return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}
