// What the user is told about the settings themselves, once per distinct state: the errors
// that keep the watchdog off, and pi-subagents' settings that load but do nothing here.
import type { ResolvedSettings } from "../settings/index.ts";

/** pi-subagents' settings (and environment) that load but do nothing here, each naming its key. */
export function unsupportedSettings(resolved: ResolvedSettings, role: string): string[] {
	const lines = resolved.unsupported.map((u) => `${u.message} (${u.origin})`);
	if (role === "main" && process.env.PI_SUBAGENT_MAX_DEPTH !== undefined) {
		const why = "children nest as deep as subagents.watchdog.children.maxDepth allows (default 2)";
		lines.push(`PI_SUBAGENT_MAX_DEPTH is not read here: ${why} (environment)`);
	}
	return lines;
}

export class SettingsNotices {
	private errors = "";
	private unsupported = "";

	/** The notices that are new since the last call, joined; undefined when there is nothing new. */
	next(resolved: ResolvedSettings, role: string): string | undefined {
		const errors = this.errorNotice(resolved.errors);
		const notices = [errors, this.unsupportedNotice(unsupportedSettings(resolved, role))].filter(Boolean);
		return notices.length ? notices.join("\n") : undefined;
	}

	private errorNotice(errors: ResolvedSettings["errors"]): string | undefined {
		const key = errors.map((e) => `${e.origin}:${e.message}`).join("\n");
		if (key === this.errors) return undefined;
		this.errors = key;
		if (!key) return undefined;
		const first = errors[0];
		const count = `${errors.length} settings error${errors.length > 1 ? "s" : ""}`;
		const where = `First: ${first.origin}: ${first.message}. See /subagents-watchdog status.`;
		return `Watchdog off for this session: ${count}. ${where}`;
	}

	private unsupportedNotice(lines: string[]): string | undefined {
		const key = lines.join("\n");
		if (key === this.unsupported) return undefined;
		this.unsupported = key;
		if (!key) return undefined;
		const many = lines.length > 1;
		const settings = `pi-subagents setting${many ? "s" : ""}`;
		const head = `Watchdog: ${lines.length} ${settings} that do${many ? "" : "es"} nothing here:`;
		return `${head}\n${lines.map((l) => `- ${l}`).join("\n")}`;
	}
}
